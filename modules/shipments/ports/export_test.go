package ports

import (
	"time"

	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
	"shipd/platform/httpapi"
)

// The request bodies and their checks, for the fuzz tests of ports_test.
type (
	CreateRequest = createRequest
	UpdateRequest = updateRequest
)

// anything is a provider that takes whatever a request may ask.
var anything = carrier.ProviderInfo{Code: "any", LabelFormats: []string{"pdf", "zpl", "epl"}, SupportsCOD: true,
	MaxParcels: carrier.MaxParcelsPerShipment}

// Check reads a decoded body of POST /v1/shipments as the port does and
// makes a shipment of it as the domain does, on a channel of a provider
// that takes anything: the answer to the body, but for its channel.
func (req *createRequest) Check(today time.Time) (domain.Stored, error) {
	d := req.request()
	if len(d.shape) > 0 {
		return domain.Stored{}, httpapi.Refusal(d.shape, d.answer(d.request.Check(today)), d.unread...)
	}
	sh, err := domain.New("sh_1", "acc_1", d.request, anything, nil, today)
	if err != nil {
		return domain.Stored{}, d.answer(err)
	}
	return sh.Stored(), nil
}

// Backoff is the pause after a failed booking or label attempt.
var Backoff = backoff
