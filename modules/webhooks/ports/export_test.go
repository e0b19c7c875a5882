package ports

// The request body and its checks, for the fuzz tests of ports_test.
type SubscriptionRequest = subscriptionRequest

// Check runs the checks of POST, PUT or PATCH on a decoded body.
func (req subscriptionRequest) Check(method string) (checked, error) {
	return req.check(method)
}

var URLProblem = urlProblem
