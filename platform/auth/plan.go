package auth

import "fmt"

// Plan is an account's subscription level; it sets the rate limit.
type Plan string

// The plans of the spec.
const (
	PlanFree       Plan = "free"
	PlanStandard   Plan = "standard"
	PlanEnterprise Plan = "enterprise"
)

// defaultEnterpriseLimit applies to an enterprise account nobody set a limit for.
const defaultEnterpriseLimit = 1200

// ParsePlan checks a plan name.
func ParsePlan(s string) (Plan, error) {
	switch p := Plan(s); p {
	case PlanFree, PlanStandard, PlanEnterprise:
		return p, nil
	}
	return "", fmt.Errorf("unknown plan %q (free, standard or enterprise)", s)
}

// RequestsPerMinute is the plan's limit unless the account has its own.
func (p Plan) RequestsPerMinute(custom *int) int {
	if custom != nil {
		return *custom
	}
	switch p {
	case PlanFree:
		return 60
	case PlanStandard:
		return 300
	default:
		return defaultEnterpriseLimit
	}
}
