package dhlexpress

import "shipd/platform/carrier"

// euCustomsUnion are the member states of the EU customs union: goods move
// between them without export declarations, so DHL books them as not
// customs declarable. Their special fiscal territories (Canary Islands,
// Åland, …) are not told apart by country code (AssumedDocumentsNonDutiable
// block of the package doc); DHL refuses those itself.
var euCustomsUnion = map[string]bool{
	"AT": true, "BE": true, "BG": true, "CY": true, "CZ": true, "DE": true, "DK": true, "EE": true, "ES": true,
	"FI": true, "FR": true, "GR": true, "HR": true, "HU": true, "IE": true, "IT": true, "LT": true, "LU": true,
	"LV": true, "MC": true, "MT": true, "NL": true, "PL": true, "PT": true, "RO": true, "SE": true, "SI": true, "SK": true,
}

// crossesCustomsBorder reports whether goods from origin to destination
// need an export declaration.
func crossesCustomsBorder(origin, destination string) bool {
	if origin == destination {
		return false
	}
	return !(euCustomsUnion[origin] && euCustomsUnion[destination])
}

// customsDeclarable decides content.isCustomsDeclarable for a shipment of
// prod, or refuses it: shipd's shipments have no customs lines, which DHL
// requires of every dutiable shipment (content.exportDeclaration.lineItems).
func customsDeclarable(prod product, origin, destination string) (bool, *carrier.Rejection) {
	if !crossesCustomsBorder(origin, destination) || prod.documents {
		return false, nil
	}
	return true, carrier.Reject("destination_address.country_code",
		"DHL Express needs customs lines (an export declaration) for goods going from %s to %s, which shipd does not carry: "+
			"send documents with a documents product (D, X, K, L, T, W) or ship inside the EU customs union", origin, destination)
}
