package ppl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// The booking request, field names as PPL documents them.
type (
	batchRequest struct {
		LabelSettings labelSettings     `json:"labelSettings"`
		Shipments     []shipmentRequest `json:"shipments"`
	}
	labelSettings struct {
		Format                string                 `json:"format"`
		DPI                   int                    `json:"dpi,omitempty"`
		CompleteLabelSettings *completeLabelSettings `json:"completeLabelSettings,omitempty"`
	}
	completeLabelSettings struct {
		IsCompleteLabelRequested bool   `json:"isCompleteLabelRequested"`
		PageSize                 string `json:"pageSize,omitempty"`
	}
	shipmentRequest struct {
		ReferenceID      string            `json:"referenceId"`
		ProductType      string            `json:"productType"`
		ShipmentSet      *shipmentSet      `json:"shipmentSet,omitempty"`
		Sender           *party            `json:"sender,omitempty"`
		Recipient        party             `json:"recipient"`
		SpecificDelivery *specificDelivery `json:"specificDelivery,omitempty"`
		CashOnDelivery   *cashOnDelivery   `json:"cashOnDelivery,omitempty"`
	}
	specificDelivery struct {
		ParcelShopCode string `json:"parcelShopCode"`
	}
	shipmentSet struct {
		NumberOfShipments int               `json:"numberOfShipments"`
		ShipmentSetItems  []shipmentSetItem `json:"shipmentSetItems,omitempty"`
	}
	shipmentSetItem struct {
		WeighedShipmentInfo *weighedShipmentInfo `json:"weighedShipmentInfo,omitempty"`
	}
	weighedShipmentInfo struct {
		Weight float64 `json:"weight"`
	}
	party struct {
		Country string `json:"country"`
		ZipCode string `json:"zipCode"`
		Name    string `json:"name"`
		Name2   string `json:"name2,omitempty"`
		Street  string `json:"street"`
		City    string `json:"city"`
		Contact string `json:"contact,omitempty"`
		Phone   string `json:"phone,omitempty"`
		Email   string `json:"email,omitempty"`
	}
	cashOnDelivery struct {
		CodCurrency string  `json:"codCurrency"`
		CodPrice    float64 `json:"codPrice"`
		CodVarSym   string  `json:"codVarSym"`
		IBAN        string  `json:"iban,omitempty"`
		Swift       string  `json:"swift,omitempty"`
	}
)

// The batch status answer (PPL's ShipmentBatchResultModel): one item per
// shipments[] element, its first parcel; the set's other parcels are its
// relatedItems of relationType ShipmentSet.
type (
	batchStatus struct {
		Items         []batchItem `json:"items"`
		CompleteLabel *struct {
			LabelURLs []string `json:"labelUrls"`
		} `json:"completeLabel"`
	}
	batchItem struct {
		ReferenceID string `json:"referenceId"`
		batchParcel
		RelatedItems []relatedItem `json:"relatedItems"`
	}
	relatedItem struct {
		batchParcel
		RelationType string `json:"relationType"`
	}
	batchParcel struct {
		ShipmentNumber string `json:"shipmentNumber"`
		ImportState    string `json:"importState"`
		LabelURL       string `json:"labelUrl"`
		ErrorCode      string `json:"errorCode"`
		ErrorMessage   string `json:"errorMessage"`
	}
)

// relationSet is the relationType of a set's further parcels (the others,
// DocumentBack and Dormant, are return documents and labels, not parcels).
const relationSet = "ShipmentSet"

// parcels are the batch's parcels in parcel order: each item, then its set's
// related parcels as PPL lists them ([U] that PPL lists them in set order).
func (st batchStatus) parcels() []batchParcel {
	var out []batchParcel
	for _, it := range st.Items {
		out = append(out, it.batchParcel)
		for _, r := range it.RelatedItems {
			if r.RelationType == relationSet {
				out = append(out, r.batchParcel)
			}
		}
	}
	return out
}

// Import states of a batch item (ConstImportState).
const (
	importComplete = "Complete"
	importError    = "Error"
)

// CreateShipment books req as one PPL shipment set, waits for the batch and
// downloads the labels of its parcels (when they cannot be had, the answer
// comes without them, for Labels to fetch). The batch id is recorded through
// req.Booking as soon as PPL has accepted the batch; an attempt given one
// (req.Booking.Handle) polls that batch instead of booking again.
func (c *Carrier) CreateShipment(ctx context.Context, s carrier.Settings, req carrier.ShipmentRequest) (carrier.CreatedShipment, error) {
	if n := len(req.Parcels); n == 0 || n > MaxParcels {
		return carrier.CreatedShipment{}, carrier.Reject("parcels", "PPL takes 1 to %d parcels per shipment set, got %d", MaxParcels, n)
	}
	sh := shipmentOf(req, s)
	if err := checkPickupPoint(sh); err != nil {
		return carrier.CreatedShipment{}, err
	}
	if sh.CashOnDelivery != nil && sh.CashOnDelivery.CodVarSym == "" {
		return carrier.CreatedShipment{}, carrier.Reject("reference_number",
			"PPL needs a variable symbol of digits for cash on delivery, taken from the reference; %q has no digit", req.Reference)
	}
	format := s.LabelFormat(req.LabelFormat)
	batchID := req.Booking.Handle
	if batchID == "" {
		var err error
		if batchID, err = c.book(ctx, s, batchRequest{LabelSettings: settingsFor(format), Shipments: []shipmentRequest{sh}}); err != nil {
			return carrier.CreatedShipment{}, err
		}
		if err := req.Booking.Accept(ctx, batchID); err != nil {
			return carrier.CreatedShipment{}, acceptError(batchID, err)
		}
	}
	st, err := c.waitForBatch(ctx, s, batchID)
	if err != nil {
		return carrier.CreatedShipment{}, err
	}
	parcels := st.parcels()
	if len(parcels) != len(req.Parcels) {
		return carrier.CreatedShipment{}, fmt.Errorf("ppl: batch %s has %d parcels, %d were booked", batchID, len(parcels), len(req.Parcels))
	}
	out := carrier.CreatedShipment{ProviderShipmentID: batchID}
	for _, p := range parcels {
		out.TrackingNumbers = append(out.TrackingNumbers, p.ShipmentNumber)
	}
	// PPL holds the batch now: a label that cannot be downloaded does not
	// undo that. The answer goes without labels, so the booking is
	// recorded, and the label step fetches them (Labels) on its own
	// retries (ADR 0041).
	if labels, err := c.download(ctx, s, st, format); err == nil {
		out.Labels = labels
	}
	return out, nil
}

// book posts the batch and returns its id from the Location header.
func (c *Carrier) book(ctx context.Context, s carrier.Settings, batch batchRequest) (string, error) {
	body, err := json.Marshal(batch)
	if err != nil {
		return "", err
	}
	res, err := c.do(ctx, s, call{method: http.MethodPost, url: c.base(s) + "/shipment/batch", body: body})
	if err != nil {
		return "", err
	}
	if res.Status != http.StatusCreated {
		return "", answerError("POST /shipment/batch", res)
	}
	return batchOf(res.Header.Get("Location"))
}

// acceptError is a failed record of the accepted batch: the attempt ends
// (the batch is booked at PPL but shipd could not remember it), as
// unavailable unless the recorder refused outright.
func acceptError(batchID string, err error) error {
	var one *carrier.Rejection
	var many carrier.Rejections
	if errors.Is(err, carrier.ErrUnavailable) || errors.As(err, &one) || errors.As(err, &many) {
		return err
	}
	return fmt.Errorf("%w: ppl: recording batch %s: %v", carrier.ErrUnavailable, batchID, err)
}

// settingsFor asks for one label per parcel in format (PPL's own label
// size), and the merged document too.
func settingsFor(format string) labelSettings {
	f, ok := labelFormats[format]
	if !ok {
		f = format // PPL names the unknown format in its answer
	}
	return labelSettings{Format: f, DPI: 300,
		CompleteLabelSettings: &completeLabelSettings{IsCompleteLabelRequested: true, PageSize: "Default"}}
}

// shipmentOf is req as PPL's shipments[] element.
func shipmentOf(req carrier.ShipmentRequest, s carrier.Settings) shipmentRequest {
	sh := shipmentRequest{
		ReferenceID: req.Reference,
		ProductType: req.ProductType,
		Sender:      ptr(partyOf(req.Sender, req.Origin)),
		Recipient:   partyOf(req.Recipient, req.Destination),
		ShipmentSet: &shipmentSet{NumberOfShipments: len(req.Parcels)},
	}
	if sh.ProductType == "" {
		sh.ProductType = s.String("productType")
	}
	if sh.ProductType == "" {
		sh.ProductType = products[0].Code
	}
	for _, p := range req.Parcels {
		sh.ShipmentSet.ShipmentSetItems = append(sh.ShipmentSet.ShipmentSetItems,
			shipmentSetItem{WeighedShipmentInfo: &weighedShipmentInfo{Weight: math.Round(p.WeightKG()*1000) / 1000}})
	}
	if point := s.PickupPoint(req.PickupPoint); point != "" {
		sh.SpecificDelivery = &specificDelivery{ParcelShopCode: point}
	}
	if req.COD != nil {
		sh.CashOnDelivery = &cashOnDelivery{
			CodCurrency: req.COD.Currency,
			CodPrice:    req.COD.Float(),
			CodVarSym:   varSym(req.Reference),
			IBAN:        s.String("codIban"),
			Swift:       s.String("codSwift"),
		}
	}
	return sh
}

func ptr[T any](v T) *T { return &v }

// partyOf is a contact at an address as PPL's sender/recipient: the company
// (else the person) as name, the person as name2 and contact.
func partyOf(c carrier.Contact, a carrier.Address) party {
	person := strings.TrimSpace(c.FirstName + " " + c.LastName)
	p := party{
		Country: strings.ToUpper(a.CountryCode),
		ZipCode: strings.ReplaceAll(a.PostalCode, " ", ""),
		Name:    person,
		Street:  street(a),
		City:    a.CityName,
		Contact: person,
		Phone:   c.Phone,
		Email:   c.Email,
	}
	if c.CompanyName != "" {
		p.Name = c.CompanyName
		p.Name2 = person
	}
	return p
}

// street is "street house/apartment", as Czech addresses write it.
func street(a carrier.Address) string {
	no := a.HouseNumber
	if a.ApartmentNumber != "" {
		no += "/" + a.ApartmentNumber
	}
	return strings.TrimSpace(a.StreetName + " " + no)
}

// varSym is the last codVarSymDigits digits of ref, or "" when it has none.
func varSym(ref string) string {
	var d []rune
	for _, r := range ref {
		if unicode.IsDigit(r) && r < 128 {
			d = append(d, r)
		}
	}
	if len(d) > codVarSymDigits {
		d = d[len(d)-codVarSymDigits:]
	}
	return string(d)
}

// batchOf reads the batchId from the Location header /shipment/batch/{id}.
func batchOf(location string) (string, error) {
	return idIn(location, "/shipment/batch/")
}

// idIn reads the id after prefix from a Location header (PPL's batches:
// /shipment/batch/{id}, /order/batch/{id}).
func idIn(location, prefix string) (string, error) {
	u, err := url.Parse(location)
	if err == nil {
		i := strings.LastIndex(u.Path, prefix)
		if i >= 0 {
			if id := strings.Trim(u.Path[i+len(prefix):], "/"); id != "" && !strings.Contains(id, "/") {
				return id, nil
			}
		}
	}
	return "", fmt.Errorf("ppl: POST %s answered 201 without a batch in Location (%q)", strings.TrimSuffix(prefix, "/"), location)
}

// batch reads the batch's status once.
func (c *Carrier) batch(ctx context.Context, s carrier.Settings, batchID string) (batchStatus, error) {
	var st batchStatus
	path := "/shipment/batch/" + url.PathEscape(batchID)
	res, err := c.do(ctx, s, call{method: http.MethodGet, url: c.base(s) + path})
	if err != nil {
		return st, err
	}
	if res.Status != http.StatusOK {
		return st, answerError("GET "+path, res)
	}
	if err := json.Unmarshal(res.Body, &st); err != nil {
		return st, fmt.Errorf("ppl: GET %s: reading the answer: %w", path, err)
	}
	return st, nil
}

// waitForBatch polls the batch until every item is Complete or one is
// Error (a Rejection per failed item), or ctx ends (ErrUnavailable). A poll
// PPL does not answer usefully (5xx, 429, no answer) is polled again.
func (c *Carrier) waitForBatch(ctx context.Context, s carrier.Settings, batchID string) (batchStatus, error) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return batchStatus{}, carrierhttp.Unavailable("batch %s not complete: %v", batchID, ctx.Err())
		case <-t.C:
		}
		st, err := c.batch(ctx, s, batchID)
		if errors.Is(err, carrier.ErrUnavailable) && ctx.Err() == nil {
			// The batch is booked: a hiccup while asking about it is
			// waited out, not turned into a new booking by a retry.
			t.Reset(c.cfg.PollInterval)
			continue
		}
		if err != nil {
			return st, err
		}
		var failed carrier.Rejections
		done := len(st.Items) > 0
		for _, it := range st.parcels() {
			switch it.ImportState {
			case importError:
				failed = append(failed, importRejection(it))
			case importComplete:
			default:
				done = false
			}
		}
		switch {
		case len(failed) == 1:
			return st, failed[0]
		case len(failed) > 1:
			return st, failed
		case done:
			return st, nil
		}
		t.Reset(c.cfg.PollInterval)
	}
}

// answerError sorts an unexpected answer: 4xx is PPL refusing (Rejection),
// anything else is not understood.
func answerError(what string, res *carrierhttp.Response) error {
	if res.Status >= 400 && res.Status < 500 {
		return rejection(res.Status, res.Body)
	}
	return fmt.Errorf("ppl: %s: unexpected HTTP %d: %s", what, res.Status, carrierhttp.Snippet(res.Body))
}

// CancelShipment cancels every parcel of the shipment. PPL answers 2xx; a
// parcel already picked up is refused (a Rejection). A parcel whose cancel
// PPL refuses but whose tracking shows it cancelled was cancelled by an
// earlier call (PPL documents no answer of its own for that): when every
// parcel was, the answer is carrier.ErrAlreadyCancelled.
func (c *Carrier) CancelShipment(ctx context.Context, s carrier.Settings, ref carrier.ShipmentRef) error {
	numbers := ref.TrackingNumbers
	if len(numbers) == 0 && ref.ProviderShipmentID != "" {
		st, err := c.batch(ctx, s, ref.ProviderShipmentID)
		if err != nil {
			return err
		}
		for _, p := range st.parcels() {
			numbers = append(numbers, p.ShipmentNumber)
		}
	}
	if len(numbers) == 0 {
		return &carrier.Rejection{Message: "the shipment has no PPL shipment numbers to cancel"}
	}
	already := 0
	for _, n := range numbers {
		path := "/shipment/" + url.PathEscape(n) + "/cancel"
		res, err := c.do(ctx, s, call{method: http.MethodPost, url: c.base(s) + path})
		if err != nil {
			return err
		}
		if res.Status/100 == 2 { // 200 per PPL's OpenAPI, 202 per its prose
			continue
		}
		refused := answerError("POST "+path, res)
		if !isRejection(refused) {
			return refused
		}
		if was, err := c.cancelled(ctx, s, n); err != nil || !was {
			return refused
		}
		already++
	}
	if already == len(numbers) {
		return carrier.ErrAlreadyCancelled
	}
	return nil
}

// cancelled reports whether PPL's tracking of parcel number shows it
// cancelled (an event of phase Canceled, or a statusId that means it).
func (c *Carrier) cancelled(ctx context.Context, s carrier.Settings, number string) (bool, error) {
	tr, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: number})
	if err != nil {
		return false, err
	}
	for _, e := range tr.Events {
		if e.Status == carrier.StatusCancelled {
			return true, nil
		}
	}
	return false, nil
}

func isRejection(err error) bool {
	var one *carrier.Rejection
	var many carrier.Rejections
	return errors.As(err, &one) || errors.As(err, &many)
}

// checkPickupPoint refuses, before any call, a point on a product that
// delivers to the address and no point on one that delivers only to points
// (shipd checks this too; the adapter holds the same rule for its own
// callers and for the COD products, which Info lists only as variants).
func checkPickupPoint(sh shipmentRequest) error {
	point := ""
	if sh.SpecificDelivery != nil {
		point = sh.SpecificDelivery.ParcelShopCode
	}
	switch use := pickupUse(sh.ProductType); {
	case use == carrier.PickupPointNone && point != "":
		return carrier.Reject(carrier.PickupPointField, "PPL product %s delivers to the address and takes no ParcelShop/ParcelBox", sh.ProductType)
	case use == carrier.PickupPointRequired && point == "":
		return carrier.Reject(carrier.PickupPointField, "PPL product %s delivers only to a ParcelShop/ParcelBox: name its code", sh.ProductType)
	}
	return nil
}
