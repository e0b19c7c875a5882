package sandbox

import (
	"crypto/rand"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"sync/atomic"
)

// serials numbers parcels for the whole process. It starts at a random
// point of the 10^6 counts a sandbox serial has, so a restarted service does
// not hand out the numbers of the previous run again (a collision needs the
// two runs' ranges to overlap).
var serials = func() *atomic.Uint64 {
	var s atomic.Uint64
	s.Store(mrand.Uint64N(1e6))
	return &s
}()

// trackingNumber is the next S10 number for a parcel sent from country. The
// serial's first digit is the parcel's tracking journey, its second 1 when
// the parcel carries cash on delivery, and the last six count.
func trackingNumber(country string, j journey, cod bool) string {
	codDigit := 0
	if cod {
		codDigit = 1
	}
	serial := fmt.Sprintf("%d%d%06d", j, codDigit, serials.Add(1)%1e6)
	return S10("SB", serial, country)
}

// S10 completes an 8-digit serial into a UPU S10 number with its check
// digit, e.g. S10("SB", "00000001", "CZ").
func S10(indicator, serial, country string) string {
	return indicator + serial + string(rune('0'+s10CheckDigit(serial))) + country
}

// s10CheckDigit is the UPU S10 check digit of an 8-digit serial: weights
// 8 6 4 2 3 5 9 7, then 11 - sum mod 11, where 10 becomes 0 and 11 becomes 5.
func s10CheckDigit(serial string) int {
	weights := [8]int{8, 6, 4, 2, 3, 5, 9, 7}
	sum := 0
	for i, w := range weights {
		sum += int(serial[i]-'0') * w
	}
	switch c := 11 - sum%11; c {
	case 10:
		return 0
	case 11:
		return 5
	default:
		return c
	}
}

// ValidTrackingNumber reports whether s is a UPU S10 number with a correct
// check digit: two capital letters, eight digits, the check digit, two
// capital letters. Any service indicator passes, not only the sandbox's SB,
// so published S10 examples check too.
func ValidTrackingNumber(s string) bool {
	if len(s) != 13 || !letters(s[:2]) || !letters(s[11:]) {
		return false
	}
	for _, c := range []byte(s[2:11]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s10CheckDigit(s[2:10]) == int(s[10]-'0')
}

func letters(s string) bool {
	for _, c := range []byte(s) {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

// originCountry is the two-letter country the numbers end with, XX when the
// origin address has none usable.
func originCountry(code string) string {
	code = strings.ToUpper(strings.TrimSpace(code))
	if len(code) != 2 || !letters(code) {
		return "XX"
	}
	return code
}

// newShipmentID is "SBX" and 12 random capital letters and digits.
func newShipmentID() string {
	return "SBX" + rand.Text()[:12]
}
