import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pipelines.webhooks.verify import sign, signature_matches

VECTOR = json.loads(
    (Path(__file__).resolve().parents[4] / "shared" / "reference" / "webhooks" / "signature-vector.json").read_text()
)


def test_documented_vector_verifies():
    secret, body = VECTOR["secret"].encode(), VECTOR["payload"].encode()
    assert sign(secret=secret, body=body) == VECTOR["X-Hub-Signature-256"]
    assert signature_matches(secret=secret, body=body, header=VECTOR["X-Hub-Signature-256"])


def test_every_documented_negative_case_is_refused():
    secret, body = VECTOR["secret"].encode(), VECTOR["payload"].encode()
    for name, digest in VECTOR["negative_cases"].items():
        for prefix in ("sha256=", "sha1="):
            assert not signature_matches(secret=secret, body=body, header=prefix + digest), name


def test_missing_header_and_uppercase_hex_are_refused():
    body = b"{}"
    good = sign(secret=b"k", body=body)
    assert not signature_matches(secret=b"k", body=body, header=None)
    assert not signature_matches(secret=b"k", body=body, header="")
    assert not signature_matches(secret=b"k", body=body, header="sha256=" + good[7:].upper())


def test_non_ascii_header_is_refused_not_raised():
    assert not signature_matches(secret=b"k", body=b"{}", header="sha256=é" * 10)


@given(secret=st.binary(min_size=1, max_size=64), body=st.binary(min_size=1, max_size=512), data=st.data())
def test_any_single_byte_change_is_refused(secret, body, data):
    header = sign(secret=secret, body=body)
    assert signature_matches(secret=secret, body=body, header=header)
    index = data.draw(st.integers(0, len(body) - 1))
    flip = data.draw(st.integers(1, 255))
    tampered = body[:index] + bytes([body[index] ^ flip]) + body[index + 1 :]
    assert not signature_matches(secret=secret, body=tampered, header=header)
