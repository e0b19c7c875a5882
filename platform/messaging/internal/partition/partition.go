// Package partition splits a consumer group into partitions by aggregate
// (ADR 0050): every message carries its aggregate's id as its partition key,
// partition p of n reads only the keys that fall to it, and each partition is
// a reader of its own, with its own lock and position, so the instances
// share a group's work and one aggregate's messages keep their order.
package partition

import (
	"hash/fnv"
	"strconv"
)

// Group is the consumer group that reads partition p of n of group: the
// group itself when it is not partitioned (n = 1), so its name, offsets and
// lock stay what they were.
func Group(group string, p, n int) string {
	if n <= 1 {
		return group
	}
	return group + "#" + strconv.Itoa(p)
}

// Of is the partition of n that key falls to, as the broker's forwarder
// computes it (any stable hash will do: only the forwarder picks a
// partition on that backbone). An empty key is partition 0.
func Of(key string, n int) int {
	if n <= 1 || key == "" {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return int(h.Sum64() % uint64(n))
}

// SQL is the partition of n that a stored message's key falls to, in
// PostgreSQL (the metadata column of a stream table): every reader of a
// stream must compute it alike, and the lag metric repeats it. A message
// without a key is partition 0.
func SQL(n int) string {
	return "CASE WHEN coalesce(metadata->>'partition_key', '') = '' THEN 0 ELSE " +
		"(hashtextextended(metadata->>'partition_key', 0) & 9223372036854775807) % " + strconv.Itoa(n) + " END"
}
