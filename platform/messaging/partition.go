package messaging

import "shipd/platform/messaging/internal/partition"

// PartitionSQL is the partition of n that a stored message falls to, as
// the readers of PostgreSQL compute it over the metadata column of its
// stream table (the lag metric counts with it; ADR 0050).
func PartitionSQL(n int) string { return partition.SQL(n) }

// PartitionGroup is the name of the consumer group that reads partition p
// of n of group (the group itself when n is 1): what /metrics and the
// offsets tables call it.
func PartitionGroup(group string, p, n int) string { return partition.Group(group, p, n) }
