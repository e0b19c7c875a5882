package dhlparcelde

import "strings"

// alpha3 converts the ISO 3166-1 alpha-2 codes shipd takes into the alpha-3
// codes DHL Parcel DE takes, for the countries this adapter ships from and to:
// Germany, the rest of the EU and EEA, Switzerland, the United Kingdom and a
// few common destinations of DHL Paket International. A code missing here is
// rejected rather than guessed.
var alpha3 = map[string]string{
	"AT": "AUT", "BE": "BEL", "BG": "BGR", "CH": "CHE", "CY": "CYP", "CZ": "CZE", "DE": "DEU",
	"DK": "DNK", "EE": "EST", "ES": "ESP", "FI": "FIN", "FR": "FRA", "GB": "GBR", "GR": "GRC",
	"HR": "HRV", "HU": "HUN", "IE": "IRL", "IS": "ISL", "IT": "ITA", "LI": "LIE", "LT": "LTU",
	"LU": "LUX", "LV": "LVA", "MC": "MCO", "MT": "MLT", "NL": "NLD", "NO": "NOR", "PL": "POL",
	"PT": "PRT", "RO": "ROU", "SE": "SWE", "SI": "SVN", "SK": "SVK", "SM": "SMR", "VA": "VAT",
	"AD": "AND", "RS": "SRB", "BA": "BIH", "ME": "MNE", "MK": "MKD", "AL": "ALB", "UA": "UKR",
	"TR": "TUR", "US": "USA", "CA": "CAN", "AU": "AUS", "NZ": "NZL", "JP": "JPN", "CN": "CHN",
}

// countryAlpha3 returns the alpha-3 code of an alpha-2 code, if supported.
func countryAlpha3(alpha2 string) (string, bool) {
	c, ok := alpha3[strings.ToUpper(strings.TrimSpace(alpha2))]
	return c, ok
}
