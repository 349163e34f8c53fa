-- Daily snapshots of the organization's repositories, issues and members (REST and GraphQL).
CREATE SCHEMA IF NOT EXISTS snapshots;
