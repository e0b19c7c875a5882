package adapters

// tally sums how a batch moves the list's counters: each shipment leaves
// the status it was counted under and enters the one it is counted under
// now ("" for none: not listed before, or deleted). The counter of the
// account, status and channel moves, and so do the block's counts by status
// and channel, by status, by channel and of all ("" is "any"); moves that
// cancel out are left out.
type tally struct {
	counts map[countKey]int64
	blocks map[blockKey]int64
}

type countKey struct{ account, status, channel string }

type blockKey struct {
	countKey
	block int64
}

func (t *tally) move(account, channel string, block int64, left, entered string) {
	if left == entered {
		return
	}
	if t.counts == nil {
		t.counts, t.blocks = map[countKey]int64{}, map[blockKey]int64{}
	}
	for _, m := range []struct {
		status string
		n      int64
	}{{left, -1}, {entered, 1}} {
		if m.status == "" {
			continue
		}
		t.counts[countKey{account, m.status, channel}] += m.n
		for _, k := range []countKey{{account, m.status, channel}, {account, m.status, ""}, {account, "", channel}, {account, "", ""}} {
			t.blocks[blockKey{k, block}] += m.n
		}
	}
}

// countRow and blockRow are the counters as json_to_recordset reads them.
type countRow struct {
	AccountID string `json:"account_id"`
	Status    string `json:"status"`
	ChannelID string `json:"channel_id"`
	N         int64  `json:"n"`
}

type blockRow struct {
	countRow
	Block int64 `json:"block"`
}

// rows are the moves that did not cancel out (the statement writes them in
// key order).
func (t *tally) rows() ([]countRow, []blockRow) {
	counts, blocks := []countRow{}, []blockRow{}
	for k, n := range t.counts {
		if n != 0 {
			counts = append(counts, countRow{k.account, k.status, k.channel, n})
		}
	}
	for k, n := range t.blocks {
		if n != 0 {
			blocks = append(blocks, blockRow{countRow{k.account, k.status, k.channel, n}, k.block})
		}
	}
	return counts, blocks
}
