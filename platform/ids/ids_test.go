package ids_test

import (
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

func TestNewSortsInCreationOrder(t *testing.T) {
	const n = 10_000 // far more than one millisecond's worth, so many share a timestamp
	made := make([]string, n)
	for i := range made {
		made[i] = ids.New(ids.Shipment)
	}
	sorted := slices.Clone(made)
	slices.Sort(sorted)
	if !slices.Equal(made, sorted) {
		for i := 1; i < n; i++ {
			if made[i-1] >= made[i] {
				t.Fatalf("id %d %q does not sort after id %d %q", i, made[i], i-1, made[i-1])
			}
		}
	}
	if len(slices.Compact(sorted)) != n {
		t.Fatal("New returned duplicate ids")
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
