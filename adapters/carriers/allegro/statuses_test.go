package allegro

import (
	"testing"

	"shipd/platform/carrier"
)

// Every status code of Allegro's file (ParcelTrackingStatus.code's enum, read
// from testdata) maps to a standard status, and the table maps nothing else.
func TestEveryDocumentedStatusIsMapped(t *testing.T) {
	code := loadSpec(t).Doc().Components.Schemas["ParcelTrackingStatus"].Value.Properties["code"].Value
	if len(code.Enum) == 0 {
		t.Fatal("no enum of ParcelTrackingStatus.code in the file")
	}
	documented := map[string]bool{}
	for _, v := range code.Enum {
		c, _ := v.(string)
		documented[c] = true
		if st := statuses.Status(c); !st.Valid() {
			t.Errorf("documented code %q maps to %q", c, st)
		}
	}
	for c := range statuses {
		if !documented[c] {
			t.Errorf("the table maps %q, which the file does not document", c)
		}
	}
	if st := statuses.Status("LOST_IN_SPACE"); st != "" {
		t.Errorf("an unknown code maps to %q", st)
	}
	if statuses.Status("DELIVERED") != carrier.StatusDelivered {
		t.Error("DELIVERED")
	}
}
