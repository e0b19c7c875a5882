package ids_test

import (
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"shipd/platform/ids"
)

func TestNewHasPrefixAndULID(t *testing.T) {
	for _, prefix := range []string{ids.Account, ids.ShippingChannel, ids.StatusUpdate, ids.Event} {
		id := ids.New(prefix)
		rest, ok := strings.CutPrefix(id, prefix+"_")
		if !ok {
			t.Fatalf("New(%q) = %q: missing prefix", prefix, id)
		}
		if len(rest) != 26 {
			t.Errorf("New(%q) = %q: ULID part has %d characters, want 26", prefix, id, len(rest))
		}
		if _, err := ulid.ParseStrict(rest); err != nil {
			t.Errorf("New(%q) = %q: ULID part does not parse: %v", prefix, id, err)
		}
		if !ids.HasPrefix(id, prefix) {
			t.Errorf("HasPrefix(%q, %q) = false for a fresh id", id, prefix)
		}
	}
}

// entropy is the 80 random bits of an id as a number.
func entropy(t *testing.T, id string) *big.Int {
	t.Helper()
	_, rest, _ := strings.Cut(id, "_")
	u, err := ulid.ParseStrict(rest)
	if err != nil {
		t.Fatalf("%q: %v", id, err)
	}
	return new(big.Int).SetBytes(u.Entropy())
}

// Ids of one instant, of one kind, must not be neighbours: a counter would
// tell an account how many ids others got beside its own. A monotonic source
// steps by less than 2^32; 10,000 random 80-bit values come closer than that
// with a chance of about n²·2^32/2^80 ≈ 4·10^-7.
func TestIdsOfOneInstantAreNotNeighbours(t *testing.T) {
	const n = 10_000
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	values := make([]*big.Int, n)
	for i := range values {
		values[i] = entropy(t, ids.NewAt(ids.ShippingChannel, at))
	}
	slices.SortFunc(values, (*big.Int).Cmp)
	step := new(big.Int).Lsh(big.NewInt(1), 32)
	for i := 1; i < n; i++ {
		gap := new(big.Int).Sub(values[i], values[i-1])
		if gap.Cmp(step) < 0 {
			t.Fatalf("two ids of one instant are %v apart, closer than 2^32: a counter, not chance", gap)
		}
	}
}

// Every one of the 80 random bits is set in about half of the ids: a
// monotonic source keeps its high bits fixed. Binomial(10,000, 1/2) has a
// standard deviation of 50; the bound is 8 of them, so a fair source fails
// with a chance below 10^-13.
func TestIdEntropyBitsAreBalanced(t *testing.T) {
	const n = 10_000
	at := time.Now()
	var ones [80]int
	for range n {
		e := entropy(t, ids.NewAt(ids.Shipment, at))
		for b := range ones {
			ones[b] += int(e.Bit(b))
		}
	}
	for b, c := range ones {
		if c < n/2-400 || c > n/2+400 {
			t.Errorf("entropy bit %d is set in %d of %d ids, want about half", b, c, n)
		}
	}
}

// Ids still sort by the time they name, across milliseconds and seconds,
// whatever their random part and the order they were made in.
func TestIdsSortByTime(t *testing.T) {
	base := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	var made []string
	var times []time.Time
	for i := range 2_000 {
		// Made out of time order: later seconds first, milliseconds mixed in.
		at := base.Add(time.Duration(19-i%20)*time.Second + time.Duration(i%7)*time.Millisecond)
		made = append(made, ids.NewAt(ids.TrackingParcel, at))
		times = append(times, at)
	}
	slices.Sort(made)
	slices.SortFunc(times, time.Time.Compare)
	for i, id := range made {
		u := ulid.MustParseStrict(strings.TrimPrefix(id, ids.TrackingParcel+"_"))
		if got := ulid.Time(u.Time()); !got.Equal(times[i]) {
			t.Fatalf("id %d in sorted order names %v, want %v", i, got, times[i])
		}
	}
	if len(slices.Compact(made)) != len(times) {
		t.Fatal("NewAt returned duplicate ids")
	}
}

func TestNewSortedAtIsAscendingAtOneTime(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	got := ids.NewSortedAt(ids.StatusUpdate, at, 50)
	if len(got) != 50 {
		t.Fatalf("%d ids, want 50", len(got))
	}
	for i, id := range got {
		if i > 0 && got[i-1] >= id {
			t.Fatalf("id %d %q does not sort after %q", i, id, got[i-1])
		}
		if !ids.HasPrefix(id, ids.StatusUpdate) {
			t.Fatalf("%q is not a status update id", id)
		}
		u := ulid.MustParseStrict(strings.TrimPrefix(id, ids.StatusUpdate+"_"))
		if !ulid.Time(u.Time()).Equal(at) {
			t.Fatalf("%q names %v, want %v", id, ulid.Time(u.Time()), at)
		}
	}
}

func TestNewAtUsesTheGivenTime(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	id := ids.NewAt(ids.Shipment, at)
	u, err := ulid.ParseStrict(strings.TrimPrefix(id, ids.Shipment+"_"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ulid.Time(u.Time()); !got.Equal(at) {
		t.Errorf("time part = %v, want %v", got, at)
	}
}

func TestHasPrefix(t *testing.T) {
	good := ids.New(ids.Shipment)
	ulidPart := strings.TrimPrefix(good, "sh_")
	tests := []struct {
		name   string
		id     string
		prefix string
		want   bool
	}{
		{"fresh id", good, ids.Shipment, true},
		{"known ULID", "sh_01ARZ3NDEKTSV4RRFFQ69G5FAV", ids.Shipment, true},
		{"wrong prefix", good, ids.TrackingParcel, false},
		{"prefix is a prefix of another", "tpu_" + ulidPart, ids.TrackingParcel, false},
		{"longer prefix asked", "tp_" + ulidPart, ids.StatusUpdate, false},
		{"no separator", "sh" + ulidPart, ids.Shipment, false},
		{"bare ULID", ulidPart, ids.Shipment, false},
		{"empty", "", ids.Shipment, false},
		{"prefix only", "sh_", ids.Shipment, false},
		{"one character short", "sh_" + ulidPart[:25], ids.Shipment, false},
		{"one character long", "sh_" + ulidPart + "0", ids.Shipment, false},
		{"character outside Crockford base32 (U)", "sh_01ARZ3NDEKTSV4RRFFQ69G5FAU", ids.Shipment, false},
		{"character outside Crockford base32 (I)", "sh_01ARZ3NDEKTSV4RRFFQ69G5FAI", ids.Shipment, false},
		{"punctuation", "sh_01ARZ3NDEKTSV4RRFFQ69G5FA!", ids.Shipment, false},
		{"path traversal", "sh_../../../../../../etc/pa", ids.Shipment, false},
		{"timestamp overflows 48 bits", "sh_81ARZ3NDEKTSV4RRFFQ69G5FAV", ids.Shipment, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids.HasPrefix(tt.id, tt.prefix); got != tt.want {
				t.Errorf("HasPrefix(%q, %q) = %v, want %v", tt.id, tt.prefix, got, tt.want)
			}
		})
	}
}
