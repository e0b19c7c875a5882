package ids_test

import (
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"shipd/platform/ids"
)

// Every {id} and {log_id} of a path goes through HasPrefix before a query:
// what it accepts is the prefix and a canonical ULID, which prints back as
// the same text, so an id that reaches the database names one row only.
func FuzzHasPrefix(f *testing.F) {
	for _, c := range []struct{ id, prefix string }{
		{ids.New(ids.Shipment), ids.Shipment},
		{ids.New(ids.WebhookLog), ids.WebhookLog},
		{ids.New(ids.WebhookLog), ids.WebhookSub},
		{"ch_01JD0000000000000000000000", ids.ShippingChannel},
		{"ch_01jd0000000000000000000000", ids.ShippingChannel},
		{"ch_81JD0000000000000000000000", ids.ShippingChannel},
		{"ch_01JD000000000000000000000", ids.ShippingChannel},
		{"ch_01JD00000000000000000000UU", ids.ShippingChannel},
		{"tp_01JD0000000000000000000000", ids.ShippingChannel},
		{"", ids.TrackingParcel},
		{"sh_", ids.Shipment},
		{"sh_01JD000000000000000000000\xff", ids.Shipment},
	} {
		f.Add(c.id, c.prefix)
	}
	f.Fuzz(func(t *testing.T, id, prefix string) {
		if !ids.HasPrefix(id, prefix) {
			return
		}
		rest, ok := strings.CutPrefix(id, prefix+"_")
		if !ok {
			t.Fatalf("HasPrefix(%q, %q) without the prefix", id, prefix)
		}
		u, err := ulid.ParseStrict(rest)
		if err != nil || u.String() != rest {
			t.Fatalf("HasPrefix(%q, %q) accepted %q, which reads back as %q (%v)", id, prefix, rest, u.String(), err)
		}
	})
}
