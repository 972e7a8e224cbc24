-- 0006: claimNextWorkflowRun finds its `starting` / `running` candidates without walking every
-- claimed run. Same rows, same constraints, same claim order (docs/STORE-RULES.md §6.4).
--
-- A `starting` or `running` queue row is eligible only when its lease has no owner, has expired
-- (expires_at <= now), or is the claiming runner's own. Most such rows hold another runner's
-- live lease, and the (status, available_at, created_at) index found them all, one lease lookup
-- each, on every claim, inside the write transaction (≈ 1.4 ms at 1,000 claimed runs). The
-- probe now starts from the three kinds of eligible lease instead:
--   * expired: the owned leases in expiry order, up to now (leases_owned_expiry_idx);
--   * the runner's own: the owned leases of that owner (leases_owner_idx);
--   * no owner: unowned_started_runs below.
-- Both indexes hold owned leases only (a queued, parked or finished run's lease is released),
-- so they stay as small as the number of live claims plus stale ones.
--
-- Every statement may run again on a file that already holds its objects (a file taken back to
-- an older migration by dropping only what those added): it then changes nothing.
CREATE INDEX IF NOT EXISTS leases_owned_expiry_idx ON leases(expires_at) WHERE owner_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS leases_owner_idx ON leases(owner_id) WHERE owner_id IS NOT NULL;

-- The runs whose queue status is `starting` or `running` while their lease has no owner (an
-- interaction deadline moves a parked run, lease released, back to `starting`; a writer may
-- release a lease and leave the queue row active). No index on `leases` alone can tell such a
-- lease from the released lease of a finished run, so the set is kept here, by triggers, inside
-- the transaction that changes a lease's owner or a queue status: it also covers writers that
-- are not this server (as 0003 does). The probe re-checks every condition on each row.
CREATE TABLE IF NOT EXISTS unowned_started_runs (
  run_id TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE
) STRICT;

INSERT OR IGNORE INTO unowned_started_runs(run_id)
SELECT q.run_id FROM run_queue q
JOIN runs r ON r.run_id = q.run_id
JOIN leases l ON l.resource_id = r.resource_id
WHERE q.status IN ('starting', 'running') AND l.owner_id IS NULL;

-- A lease loses its owner (park, complete and the terminal transitions move the queue status
-- first, so only an active row joins here).
CREATE TRIGGER IF NOT EXISTS unowned_started_lease_released AFTER UPDATE OF owner_id ON leases
WHEN OLD.owner_id IS NOT NULL AND NEW.owner_id IS NULL
BEGIN
  INSERT OR IGNORE INTO unowned_started_runs(run_id)
  SELECT q.run_id FROM runs r JOIN run_queue q ON q.run_id = r.run_id
  WHERE r.resource_id = NEW.resource_id AND q.status IN ('starting', 'running');
END;

-- A lease gains an owner (a claim).
CREATE TRIGGER IF NOT EXISTS unowned_started_lease_taken AFTER UPDATE OF owner_id ON leases
WHEN OLD.owner_id IS NULL AND NEW.owner_id IS NOT NULL
BEGIN
  DELETE FROM unowned_started_runs WHERE run_id IN (SELECT run_id FROM runs WHERE resource_id = NEW.resource_id);
END;

-- A lease row written without an owner for a run already active (another writer's order).
CREATE TRIGGER IF NOT EXISTS unowned_started_lease_inserted AFTER INSERT ON leases
WHEN NEW.owner_id IS NULL
BEGIN
  INSERT OR IGNORE INTO unowned_started_runs(run_id)
  SELECT q.run_id FROM runs r JOIN run_queue q ON q.run_id = r.run_id
  WHERE r.resource_id = NEW.resource_id AND q.status IN ('starting', 'running');
END;

-- A queue row becomes active (an interaction deadline's parked → starting; a claim, whose lease
-- is owned by then, adds nothing).
CREATE TRIGGER IF NOT EXISTS unowned_started_queue_activated AFTER UPDATE OF status ON run_queue
WHEN NEW.status IN ('starting', 'running') AND OLD.status NOT IN ('starting', 'running')
BEGIN
  INSERT OR IGNORE INTO unowned_started_runs(run_id)
  SELECT NEW.run_id FROM runs r JOIN leases l ON l.resource_id = r.resource_id
  WHERE r.run_id = NEW.run_id AND l.owner_id IS NULL;
END;

-- A queue row leaves `starting` / `running`.
CREATE TRIGGER IF NOT EXISTS unowned_started_queue_left AFTER UPDATE OF status ON run_queue
WHEN OLD.status IN ('starting', 'running') AND NEW.status NOT IN ('starting', 'running')
BEGIN
  DELETE FROM unowned_started_runs WHERE run_id = OLD.run_id;
END;

-- A queue row written active by another writer, or removed.
CREATE TRIGGER IF NOT EXISTS unowned_started_queue_inserted AFTER INSERT ON run_queue
WHEN NEW.status IN ('starting', 'running')
BEGIN
  INSERT OR IGNORE INTO unowned_started_runs(run_id)
  SELECT NEW.run_id FROM runs r JOIN leases l ON l.resource_id = r.resource_id
  WHERE r.run_id = NEW.run_id AND l.owner_id IS NULL;
END;

CREATE TRIGGER IF NOT EXISTS unowned_started_queue_deleted AFTER DELETE ON run_queue
BEGIN
  DELETE FROM unowned_started_runs WHERE run_id = OLD.run_id;
END;
