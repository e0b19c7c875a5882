package labels_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"shipd/adapters/labels"
)

// TestPDFLabelBytesAreKept holds the PDF labels to the bytes they rendered
// to when this test was written: the handover document shares their page
// drawing and PDF writer, and a change made for it must not change a
// label. A change of the label's layout on purpose changes these sums too.
func TestPDFLabelBytesAreKept(t *testing.T) {
	for _, tt := range []struct {
		name  string
		label labels.ParcelLabel
		sum   string
	}{
		{"parcel 1 of 3", parcel(0), "58a0e4237460c9e9c4651eaa604b3f64298de26e2788b933af1b80864e433c77"},
		{"parcel 3 of 3", parcel(2), "a37cfebb0cfd0ad065e8583267e418c3b868efbceed979a415fb79c4ced3c8b7"},
		{"special characters", specialParcel(), "5fe360ecaa034f377463aec5d88fca444a3dd926f90651755a79aad08e066feb"},
	} {
		b, err := labels.Render("pdf", tt.label)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != tt.sum {
			t.Errorf("%s: the PDF label's bytes changed (sha256 %x)", tt.name, sum)
		}
	}
}
