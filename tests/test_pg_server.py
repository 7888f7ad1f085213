"""The tests' private PostgreSQL server (tests/pg_server.py): durable, private, one
schema per test."""

from __future__ import annotations

import psycopg


def test_the_server_is_durable_and_listens_only_on_its_private_socket(pg_server, pg_url):
    with psycopg.connect(pg_url) as conn:
        settings = dict(conn.execute(
            "SELECT name, setting FROM pg_settings WHERE name IN "
            "('fsync', 'synchronous_commit', 'listen_addresses', 'unix_socket_directories')"))
    assert settings == {"fsync": "on", "synchronous_commit": "on", "listen_addresses": "",
                        "unix_socket_directories": str(pg_server.sockets)}
    assert pg_server.sockets.stat().st_mode & 0o077 == 0


def test_each_test_works_in_a_schema_of_its_own(pg_server):
    first, second = pg_server.fresh_url(), pg_server.fresh_url()
    with psycopg.connect(first) as conn:
        conn.execute("CREATE TABLE games (id int)")
        conn.execute("INSERT INTO games VALUES (1)")
    with psycopg.connect(second) as conn:
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE tablename = 'games' "
                            "AND schemaname = current_schema()").fetchone() == (0,)
