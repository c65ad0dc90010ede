PRAGMA user_version = 17;
CREATE TABLE persistence_state (store_id TEXT NOT NULL) STRICT;
INSERT INTO persistence_state VALUES ('a1b2c3');
CREATE TABLE sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL, created_at INTEGER NOT NULL, cwd TEXT, parent_session TEXT, seed_length INTEGER, incarnation INTEGER NOT NULL, revision INTEGER NOT NULL) STRICT;
INSERT INTO sessions VALUES ('later', 0, 1, '/w', NULL, NULL, 1, 3);
