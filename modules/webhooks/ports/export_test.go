package ports

import (
	"net/http"
	"time"

	"shipd/modules/webhooks/app"
	"shipd/modules/webhooks/domain"
)

// The request body and its checks, for the fuzz tests of ports_test.
type SubscriptionRequest = subscriptionRequest

// Check reads a decoded body as the port does for method and makes (POST)
// or changes (PUT, PATCH) a subscription of it as the domain does: what
// would be stored, or the answer's problems.
func (req subscriptionRequest) Check(method string) (domain.Stored, error) {
	c, err := req.read(method)
	if err != nil {
		return domain.Stored{}, err
	}
	now := time.Now()
	if method == http.MethodPost {
		sub, err := domain.NewSubscription("wh_1", "acc_1", fields(c, req.Secret != nil), app.EventTypes, now)
		if err != nil {
			return domain.Stored{}, err
		}
		return sub.Stored(), nil
	}
	sub, err := domain.NewSubscription("wh_1", "acc_1", domain.Fields{Name: "orders", URL: "https://hooks.example.com/shipd",
		Events: []string{"shipment.created"}, Secret: "first-secret", Active: true}, app.EventTypes, now)
	if err != nil {
		panic(err)
	}
	if err := sub.Apply(c, app.EventTypes, now); err != nil {
		return domain.Stored{}, err
	}
	return sub.Stored(), nil
}
