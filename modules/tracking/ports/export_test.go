package ports

import (
	"time"

	"shipd/modules/tracking/domain"
)

// The request bodies and their checks, for the fuzz tests of ports_test.
type (
	CreateRequest = createRequest
	UpdateRequest = updateRequest
)

// Check reads a decoded body of POST /v1/tracking-parcels as the port does
// and makes a parcel of it as the domain does: the answer to the body, but
// for its channel.
func (req createRequest) Check() (domain.Stored, error) {
	r, err := req.request()
	if err != nil {
		return domain.Stored{}, err
	}
	p, err := domain.New("tp_1", "acc_1", "sandbox", r, time.Now())
	if err != nil {
		return domain.Stored{}, err
	}
	return p.Stored(), nil
}

// Check reads a decoded body of PUT and PATCH as the port does and checks
// its edit as the domain does: the answer to the body, but for its parcel.
func (req updateRequest) Check() (map[string]any, error) {
	external, err := req.externalData()
	if err != nil {
		return nil, err
	}
	return external, domain.CheckEdit(req.RecipientName, req.RecipientEmail, req.RecipientPhone, external)
}
