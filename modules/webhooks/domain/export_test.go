package domain

// URLProblem is the delivery URL rule, for the fuzz test of domain_test.
var URLProblem = urlProblem
