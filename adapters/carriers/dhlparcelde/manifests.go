package dhlparcelde

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/adapters/labels"
	"shipd/platform/carrier"
)

// MaxManifestShipments is the most shipment numbers one POST /manifests
// closes out (ShipmentManifestingRequest.shipmentNumbers maxItems) [V].
const MaxManifestShipments = 30

// The shipping API's manifest shapes [V parcel-de-shipping-v2_2.yaml].
type (
	manifestRequest struct {
		Profile         string   `json:"profile"`
		ShipmentNumbers []string `json:"shipmentNumbers"`
	}
	// multipleManifestResponse is POST /manifests' 207: one item per
	// shipment number.
	multipleManifestResponse struct {
		Status requestStatus `json:"status"`
		Items  []struct {
			ShipmentNo string        `json:"shipmentNo"`
			Sstatus    requestStatus `json:"sstatus"`
		} `json:"items"`
	}
	// singleManifestResponse is GET /manifests' day document.
	singleManifestResponse struct {
		ManifestDate string     `json:"manifestDate"`
		Manifest     []document `json:"manifest"`
		Items        []struct {
			ShipmentNo string `json:"shipmentNo"`
			SheetNo    string `json:"sheetNo"`
		} `json:"items"`
	}
)

// CreateManifest closes the shipments out at DHL (POST /manifests, at most
// 30 numbers a call, so in chunks) and answers DHL's manifest of
// req.Date (GET /manifests): its PDF documents merged into one, referenced
// by the date and the sheet numbers of the shipments. Closing out is
// irreversible [V]: the shipments can no longer be changed nor cancelled.
// A shipment closed out already (by an earlier attempt, or by DHL's daily
// close-out) is a warning, not a refusal [V], so a failed attempt can be
// repeated. A shipment DHL refuses is a rejection on shipment_ids; the
// others stay closed out. DHL's document lists every shipment of the DHL
// account closed out that day, not only these [V].
func (c *Carrier) CreateManifest(ctx context.Context, s carrier.Settings, req carrier.ManifestRequest) (carrier.CarrierManifest, error) {
	if err := checkCredentials(s); err != nil {
		return carrier.CarrierManifest{}, err
	}
	if _, err := time.Parse(time.DateOnly, req.Date); err != nil {
		return carrier.CarrierManifest{}, carrier.Reject(carrier.PickupFieldDate, "must be a date 2006-01-02, not %q", req.Date)
	}
	var nums []string
	for _, sh := range req.Shipments {
		n := numbers(carrier.ShipmentRef{ProviderShipmentID: sh.ProviderShipmentID, TrackingNumbers: sh.TrackingNumbers})
		if len(n) == 0 {
			return carrier.CarrierManifest{}, carrier.Reject(carrier.PickupFieldShipments, "shipment %s has no DHL shipment number", sh.ShipmentID)
		}
		nums = append(nums, n...)
	}
	if len(nums) == 0 {
		return carrier.CarrierManifest{}, carrier.Reject(carrier.PickupFieldShipments, "a manifest needs at least one shipment")
	}
	var refused []*carrier.Rejection
	for chunk := range slices.Chunk(nums, MaxManifestShipments) {
		r, err := c.closeOut(ctx, s, chunk)
		if err != nil {
			return carrier.CarrierManifest{}, err
		}
		refused = append(refused, r...)
	}
	if len(refused) > 0 {
		return carrier.CarrierManifest{}, carrier.RejectionOf(refused)
	}
	return c.dayManifest(ctx, s, req.Date, nums)
}

// closeOut is one POST /manifests of at most 30 numbers: the shipments DHL
// refused to close out, one rejection each.
func (c *Carrier) closeOut(ctx context.Context, s carrier.Settings, nums []string) ([]*carrier.Rejection, error) {
	body, err := json.Marshal(manifestRequest{Profile: profile(s), ShipmentNumbers: nums})
	if err != nil {
		return nil, err
	}
	u := c.apiHost(s) + shippingBase + "/manifests"
	res, err := c.call(ctx, s, func() (*http.Request, error) { return newRequest(ctx, http.MethodPost, u, body) })
	if err != nil {
		return nil, err
	}
	if res.Status != http.StatusMultiStatus && res.Status != http.StatusOK {
		return nil, manifestRefusal(res, "close-out")
	}
	var ans multipleManifestResponse
	if err := json.Unmarshal(res.Body, &ans); err != nil {
		return nil, fmt.Errorf("dhl_parcel_de: close-out: unreadable answer: %v", err)
	}
	var out []*carrier.Rejection
	answered := map[string]bool{}
	for _, it := range ans.Items {
		answered[it.ShipmentNo] = true
		if !it.Sstatus.ok() {
			out = append(out, carrier.Reject(carrier.PickupFieldShipments, "DHL did not close out shipment %s: %s", it.ShipmentNo, it.Sstatus.message()))
		}
	}
	for _, n := range nums {
		if !answered[n] {
			return nil, fmt.Errorf("dhl_parcel_de: close-out: the answer says nothing of shipment %s", n)
		}
	}
	return out, nil
}

// dayManifest is GET /manifests of date: DHL's documents (PDF, base64)
// merged, referenced by the date and the sheets nums are on. A day DHL has
// no document for (404, or none in the answer) answers the reference
// without one, and shipd draws its own.
func (c *Carrier) dayManifest(ctx context.Context, s carrier.Settings, date string, nums []string) (carrier.CarrierManifest, error) {
	q := url.Values{"date": {date}, "includeDocs": {"include"}}
	u := c.apiHost(s) + shippingBase + "/manifests?" + q.Encode()
	res, err := c.call(ctx, s, func() (*http.Request, error) { return newRequest(ctx, http.MethodGet, u, nil) })
	if err != nil {
		return carrier.CarrierManifest{}, err
	}
	if res.Status == http.StatusNotFound {
		return carrier.CarrierManifest{Reference: date}, nil
	}
	if res.Status != http.StatusOK {
		return carrier.CarrierManifest{}, manifestRefusal(res, "manifest")
	}
	var ans singleManifestResponse
	if err := json.Unmarshal(res.Body, &ans); err != nil {
		return carrier.CarrierManifest{}, fmt.Errorf("dhl_parcel_de: manifest: unreadable answer: %v", err)
	}
	out := carrier.CarrierManifest{Reference: reference(ans, date, nums)}
	var parts [][]byte
	for _, d := range ans.Manifest {
		if d.B64 == "" || (d.FileFormat != "" && d.FileFormat != "PDF") {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(d.B64)
		if err != nil {
			return carrier.CarrierManifest{}, fmt.Errorf("dhl_parcel_de: manifest of %s: bad base64: %v", date, err)
		}
		parts = append(parts, data)
	}
	switch len(parts) {
	case 0:
	case 1:
		out.Document = parts[0]
	default:
		merged, err := labels.Merge("pdf", parts)
		if err != nil {
			return carrier.CarrierManifest{}, fmt.Errorf("dhl_parcel_de: manifest of %s: merging its %d documents: %v", date, len(parts), err)
		}
		out.Document = merged
	}
	return out, nil
}

// reference is the manifest's date (DHL's, else the one asked) and the
// sheet numbers DHL put nums on.
func reference(ans singleManifestResponse, date string, nums []string) string {
	if calendarDate(ans.ManifestDate) != "" {
		date = ans.ManifestDate
	}
	var sheets []string
	for _, it := range ans.Items {
		if it.SheetNo != "" && slices.Contains(nums, it.ShipmentNo) && !slices.Contains(sheets, it.SheetNo) {
			sheets = append(sheets, it.SheetNo)
		}
	}
	if len(sheets) == 0 {
		return date
	}
	return date + " sheet " + strings.Join(sheets, ", ")
}

// manifestRefusal sorts a refusing answer of /manifests: a 400 lists the
// shipments it refuses (LabelDataResponse) or refuses the date (GET); the
// rest is DHL's RequestStatus.
func manifestRefusal(res *carrierhttp.Response, what string) error {
	if res.Status == http.StatusBadRequest {
		if ld, err := decodeLabelData(res.Body, what); err == nil {
			var out []*carrier.Rejection
			for _, it := range ld.Items {
				if !it.Sstatus.ok() {
					out = append(out, carrier.Reject(carrier.PickupFieldShipments, "DHL refused the %s of shipment %s: %s", what, it.ShipmentNo, it.Sstatus.message()))
				}
			}
			if len(out) > 0 {
				return carrier.RejectionOf(out)
			}
			if what == "manifest" {
				return carrier.Reject(carrier.PickupFieldDate, "DHL has no manifest for this date (too old or in the future): %s", ld.Status.message())
			}
		}
	}
	return carrier.Reject(carrier.PickupFieldShipments, "DHL refused the %s: %s", what, statusMessage(res))
}
