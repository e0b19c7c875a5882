package projection

// WithBeforeSwapCommit returns o with fn run in the swap's transaction just
// before it commits, with the live tables locked and already replaced.
func (o Options) WithBeforeSwapCommit(fn func()) Options {
	o.beforeSwapCommit = fn
	return o
}
