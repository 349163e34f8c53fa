SELECT checksum FROM meta.view_definitions;
