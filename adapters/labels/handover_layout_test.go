package labels

import (
	"testing"

	"shipd/platform/carrier"
)

// TestPaginateKeepsEverythingOnItsPages lays out every count of rows up to
// several pages with every number of COD currencies: each row once and in
// order, none below the body of its page, and the closing block whole on
// one page, after the last row.
func TestPaginateKeepsEverythingOnItsPages(t *testing.T) {
	for currencies := range MaxHandoverCurrencies + 1 {
		closing := closingHeight(handoverTotals{cod: make([]carrier.Money, currencies)})
		for rows := 1; rows <= 100; rows++ {
			pages := paginate(rows, closing)
			next, closings := 0, 0
			for i, pg := range pages {
				if pg.first != next || pg.end < pg.first {
					t.Fatalf("%d rows: page %d holds rows %d to %d, want from %d", rows, i+1, pg.first, pg.end, next)
				}
				next = pg.end
				bottom := pg.tableTop + hoTableHead + float64(pg.end-pg.first)*hoRow
				if pg.end > pg.first && bottom > hoBodyBottom {
					t.Errorf("%d rows: page %d's rows end at %.1f mm, below %.0f", rows, i+1, bottom, hoBodyBottom)
				}
				if pg.closingAt > 0 {
					closings++
					if i != len(pages)-1 || pg.closingAt+closing > hoBodyBottom || pg.end > pg.first && pg.closingAt < bottom {
						t.Errorf("%d rows, %d currencies: closing block at %.1f mm on page %d of %d",
							rows, currencies, pg.closingAt, i+1, len(pages))
					}
				}
			}
			if next != rows || closings != 1 {
				t.Errorf("%d rows: pages hold %d rows and %d closing blocks", rows, next, closings)
			}
		}
	}
}

func TestFormatAmounts(t *testing.T) {
	for _, tt := range []struct {
		got, want string
	}{
		{formatMinor(12550, 2), "125.50"},
		{formatMinor(5, 2), "0.05"},
		{formatMinor(5, 3), "0.005"},
		{formatMinor(1999, 0), "1999"},
		{formatMinor(9_007_199_254_740_993, 2), "90071992547409.93"},
		{formatKG(2500), "2.50"},
		{formatKG(5), "0.005"},
		{formatKG(12000), "12.00"},
		{formatKG(1234567), "1234.567"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
