package ports

import (
	"time"

	"shipd/modules/shipments/domain"
	"shipd/platform/carrier"
)

// The request bodies and their checks, for the fuzz tests of ports_test.
type (
	CreateRequest = createRequest
	UpdateRequest = updateRequest
)

// Check runs the checks of POST /v1/shipments on a decoded body.
func (req *createRequest) Check(today time.Time) (domain.State, *carrier.Money, error) {
	c, err := req.check(today)
	return c.state, c.cod, err
}
