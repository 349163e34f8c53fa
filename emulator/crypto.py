"""Keys and signatures: the app's RSA key, signed download links, webhook signatures."""

from __future__ import annotations

import functools
import hashlib
import hmac
import random

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

_SMALL_PRIMES = [p for p in range(3, 2000) if all(p % d for d in range(2, int(p**0.5) + 1))]


def _is_probable_prime(n: int, rng: random.Random) -> bool:
    if any(n % p == 0 for p in _SMALL_PRIMES):
        return n in _SMALL_PRIMES
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for _ in range(24):
        x = pow(rng.randrange(2, n - 2), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(rng: random.Random, bits: int, e: int) -> int:
    while True:
        # Top two bits set so that p*q has exactly 2*bits bits.
        candidate = rng.getrandbits(bits) | (0b11 << (bits - 2)) | 1
        if candidate % e != 1 and _is_probable_prime(candidate, rng):
            return candidate


@functools.lru_cache(maxsize=8)
def rsa_key_from_seed(*, seed: int, bits: int = 2048) -> rsa.RSAPrivateKey:
    """A deterministic RSA key: the same seed always gives the same app key."""
    rng = random.Random(f"app-key:{seed}")
    e = 65537
    p = _prime(rng, bits // 2, e)
    q = _prime(rng, bits // 2, e)
    while q == p:
        q = _prime(rng, bits // 2, e)
    d = pow(e, -1, (p - 1) * (q - 1))
    numbers = rsa.RSAPrivateNumbers(
        p=p,
        q=q,
        d=d,
        dmp1=d % (p - 1),
        dmq1=d % (q - 1),
        iqmp=pow(q, -1, p),
        public_numbers=rsa.RSAPublicNumbers(e=e, n=p * q),
    )
    return numbers.private_key()


def private_key_pem(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )


def link_signature(*, secret: bytes, path: str, expires: int) -> str:
    return hmac.new(secret, f"{path}\n{expires}".encode(), hashlib.sha256).hexdigest()


def link_signature_ok(*, secret: bytes, path: str, expires: int, signature: str) -> bool:
    return hmac.compare_digest(link_signature(secret=secret, path=path, expires=expires), signature)


def webhook_signature(*, secret: str, body: bytes) -> str:
    """The `x-hub-signature-256` value: `sha256=` and the hex HMAC-SHA256 of the body."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
