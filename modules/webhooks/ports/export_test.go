package ports

// The request body and its checks, for the fuzz tests of ports_test.
type SubscriptionRequest = subscriptionRequest

// Check runs the checks of POST (name, url, events required), PUT (name)
// or PATCH on a decoded body.
func (req subscriptionRequest) Check(required ...string) (checked, error) {
	return req.check(required...)
}

var URLProblem = urlProblem
