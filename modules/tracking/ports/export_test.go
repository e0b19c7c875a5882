package ports

import "shipd/modules/tracking/domain"

// The request bodies and their checks, for the fuzz tests of ports_test.
type (
	CreateRequest = createRequest
	UpdateRequest = updateRequest
)

// Check runs the checks of POST /v1/tracking-parcels on a decoded body.
func (req createRequest) Check() (domain.State, error) { return req.check() }

// Check runs the checks of PUT and PATCH on a decoded body.
func (req updateRequest) Check() (map[string]any, error) { return req.check() }
