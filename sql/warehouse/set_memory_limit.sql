SET memory_limit = $memory_limit;
