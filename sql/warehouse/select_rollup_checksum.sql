SELECT checksum FROM meta.rollup_definitions;
