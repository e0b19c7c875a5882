package carrier

import "strings"

// The code lists below are those the API has checked country and currency
// codes against since its first version (go-playground/validator's
// iso3166_1_alpha2 and iso4217 of v10.30.6): the domains refuse and accept
// exactly what the API always did.

// IsCountryCode reports whether s is an ISO 3166-1 alpha-2 country code, in
// capitals.
func IsCountryCode(s string) bool {
	_, ok := countryCodes[s]
	return ok
}

// IsCurrencyCode reports whether s is an ISO 4217 currency code, in capitals.
func IsCurrencyCode(s string) bool {
	_, ok := currencyCodes[s]
	return ok
}

// IsCashCurrency reports whether s is a currency a carrier can collect as
// cash on delivery: an ISO 4217 code of money, not one of the codes the
// list holds for something else (issue 31): XXX (no currency), XTS
// (testing), the precious metals (XAU, XAG, XPD, XPT), the units of
// account (XDR, XSU, XUA, XBA to XBD) and the funds (BOV, CHE, CHW, CLF,
// COU, MXV, USN, UYI, UYW), which no one pays a courier in. The X-codes of
// money (XAF, XOF, XPF, XCD, XCG) are currencies.
func IsCashCurrency(s string) bool {
	_, notCash := notCashCodes[s]
	return IsCurrencyCode(s) && !notCash
}

var notCashCodes = codeSet("XXX XTS XAU XAG XPD XPT XDR XSU XUA XBA XBB XBC XBD BOV CHE CHW CLF COU MXV USN UYI UYW")

var countryCodes = codeSet(
	"AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE " +
		"BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD " +
		"CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM " +
		"DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF " +
		"GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU " +
		"ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN " +
		"KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME " +
		"MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA " +
		"NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM " +
		"PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI " +
		"SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK " +
		"TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI " +
		"VN VU WF WS XK YE YT ZA ZM ZW",
)

var currencyCodes = codeSet(
	"AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD " +
		"BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP " +
		"CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD " +
		"FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR " +
		"IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK " +
		"LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK " +
		"MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR " +
		"PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS " +
		"SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH " +
		"UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XAG XAU XBA " +
		"XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XTS XUA XXX YER ZAR " +
		"ZMW ZWG",
)

func codeSet(codes string) map[string]struct{} {
	set := map[string]struct{}{}
	for _, c := range strings.Fields(codes) {
		set[c] = struct{}{}
	}
	return set
}
