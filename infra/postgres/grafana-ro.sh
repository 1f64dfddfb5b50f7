#!/bin/sh
# grafana_ro: the role Grafana's PostgreSQL data source logs in as. It may only read, and only the
# tables the dashboards in infra/grafana/dashboards query (test/deploy/grafana-ro.test.ts runs them
# as this role). The postgres image runs this once, on its first start (docker-compose.yml mounts it
# into /docker-entrypoint-initdb.d/); for a database created before, run it by hand:
#   docker compose exec postgres sh /docker-entrypoint-initdb.d/10-grafana-ro.sh
# Safe to run again (e.g. to change the password).
set -e
: "${GRAFANA_DB_PASSWORD:?GRAFANA_DB_PASSWORD is required}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v password="$GRAFANA_DB_PASSWORD" -v db="$POSTGRES_DB" <<'SQL'
SELECT 'CREATE ROLE grafana_ro' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'grafana_ro') \gexec
ALTER ROLE grafana_ro WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'password';
ALTER ROLE grafana_ro SET default_transaction_read_only = on;
ALTER ROLE grafana_ro SET statement_timeout = '30s';
GRANT CONNECT ON DATABASE :"db" TO grafana_ro;
GRANT USAGE ON SCHEMA public TO grafana_ro;

-- The migrations run after this script (the services run them at start), so the grants follow
-- the tables: now for those that exist, and from an event trigger whenever a table is created.
CREATE OR REPLACE FUNCTION grafana_ro_grant_tables() RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['query_routing_logs', 'request_events'] LOOP
    IF to_regclass('public.' || t) IS NOT NULL THEN
      EXECUTE format('GRANT SELECT ON public.%I TO grafana_ro', t);
    END IF;
  END LOOP;
END $fn$;

CREATE OR REPLACE FUNCTION grafana_ro_on_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM grafana_ro_grant_tables();
EXCEPTION WHEN OTHERS THEN
  -- A missing dashboard grant must never fail a migration.
  RAISE WARNING 'grafana_ro grants: %', SQLERRM;
END $fn$;

REVOKE EXECUTE ON FUNCTION grafana_ro_grant_tables() FROM PUBLIC;

DROP EVENT TRIGGER IF EXISTS grafana_ro_grants;
CREATE EVENT TRIGGER grafana_ro_grants ON ddl_command_end
  WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE') EXECUTE FUNCTION grafana_ro_on_ddl();
SELECT grafana_ro_grant_tables();
SQL
