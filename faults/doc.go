// Package faults is the fault suite (`make faults`): real shipd processes on
// a real PostgreSQL, broken on purpose while they work, and checked for what
// the API promises.
//
//   - kill -9 of shipd under write load, then a restart (kill_test.go);
//   - PostgreSQL stopped and started again under load, shipd left running
//     (postgres_restart_test.go);
//   - two shipd instances on one database under load (two_instances_test.go);
//   - a webhook receiver down for the whole retry schedule, walked through on
//     a test clock (retry_schedule_test.go);
//   - the event broker (NATS JetStream, a real nats-server) killed and started
//     again under load, and down while shipd starts (broker_restart_test.go);
//   - shipd killed by its failpoint between a consumer group's batch written
//     and its commit (ADR 0048), again and again under load, on PostgreSQL
//     and on the broker (batch_kill_test.go, checks in batch_checks_test.go);
//   - the dispatch module as a process of its own killed with -9 under
//     pickup and manifest load, by its failpoints at each recovery point
//     and from outside (dispatch_kill_test.go, with dispatch_load_test.go
//     and dispatch_checks_test.go): no pickup ordered at the carrier twice
//     (the sandbox's journal), none left being ordered, no manifest lost
//     or holding shipments it does not hand over.
//
// After each fault: every write answered 2xx is stored, every event published
// for it reached the list read model and the webhook receiver, and nothing is
// sent twice where the service promises once. Every scenario logs its
// figures (t.Logf) for the project's report.
//
// The tests carry the build tag faults, so `make test` skips them; the suite
// builds shipd once and runs its own PostgreSQL cluster, so it needs no
// DATABASE_URL. Harness: main_test.go (build, cluster), shipd_test.go
// (processes), client_test.go, receiver_test.go, load_test.go,
// checks_test.go, eventually_test.go.
package faults
