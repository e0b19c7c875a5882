package labelcheck_test

import (
	"slices"
	"testing"

	"shipd/adapters/carriers/internal/labelcheck"
	"shipd/adapters/labels"
)

func render(t *testing.T, format string, numbers ...string) []byte {
	t.Helper()
	var parts [][]byte
	for i, n := range numbers {
		data, err := labels.Render(format, labels.ParcelLabel{Carrier: "Test", TrackingNumber: n, ParcelIndex: i + 1, ParcelCount: len(numbers),
			Sender: labels.Party{Name: "Sender"}, Recipient: labels.Party{Name: "Recipient ^FD \"quoted\""}})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, data)
	}
	merged, err := labels.Merge(format, parts)
	if err != nil {
		t.Fatal(err)
	}
	return merged
}

func TestReadsBackTheBarcodesOfEachFormat(t *testing.T) {
	want := []string{"SB000000014CZ", "SB100000017CZ"}
	if got := labelcheck.ZPLBarcodes(render(t, "zpl", want...)); !slices.Equal(got, want) {
		t.Errorf("ZPL barcodes %q, want %q", got, want)
	}
	if got := labelcheck.EPLBarcodes(render(t, "epl", want...)); !slices.Equal(got, want) {
		t.Errorf("EPL barcodes %q, want %q", got, want)
	}
	pages := labelcheck.PDFBarcodes(t, render(t, "pdf", want...))
	if len(pages) != 2 || !slices.Equal(pages[0], want[:1]) || !slices.Equal(pages[1], want[1:]) {
		t.Errorf("PDF barcodes per page %q, want %q", pages, want)
	}
}
