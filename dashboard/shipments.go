package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"
)

// The shipments pages read GET /v1/shipments, /v1/shipments/{id}, its label,
// /v1/shipping-channels and /v1/tracking-parcels as the signed-in account
// (ADR 0027); the label preview is drawn here (label_preview.go, ADR 0028).
// shipments_list.go is the list, shipment_page.go one shipment,
// shipment_label.go its label. The API's answers are read into the shipments
// and tracking modules' own records (their contract packages).

// registerShipments adds the shipments pages.
func (d *Dashboard) registerShipments(r *mux.Router) {
	r.Handle("/dashboard/shipments", d.signedIn(d.shipmentsPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/shipments/{id}", d.signedIn(d.shipmentPage)).Methods(http.MethodGet)
	r.Handle("/dashboard/shipments/{id}/label", d.signedIn(d.shipmentLabel)).Methods(http.MethodGet)
	r.Handle("/dashboard/shipments/{id}/label.png", d.signedIn(d.shipmentLabelPNG)).Methods(http.MethodGet)
	r.Handle("/dashboard/shipments/{id}/label/retry", d.signedIn(d.retryShipmentLabel)).Methods(http.MethodPost)
}

// money shows an amount with its currency: two decimals, none for the
// currencies that have no minor unit.
func money(amount float64, currency string) string {
	decimals := 2
	switch strings.ToUpper(currency) {
	case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF":
		decimals = 0
	}
	return strconv.FormatFloat(amount, 'f', decimals, 64) + " " + currency
}

// price is what the carrier charges for a shipment, "" until it has said
// and when its answer named none (the API's null, never a made-up 0).
func price(total *float64, currency *string) string {
	if total == nil || currency == nil {
		return ""
	}
	return money(*total, *currency)
}

// carrierID is the carrier's id of a shipment, "" until it booked it.
func carrierID(providerShipmentID *string) string {
	if providerShipmentID == nil {
		return ""
	}
	return *providerShipmentID
}

// measurement shows a dimension or weight without trailing zeros.
func measurement(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
