package failswitch

import "testing"

func TestCountdownFailsTheNextNThenNone(t *testing.T) {
	var c Countdown
	if c.Take() {
		t.Fatal("a disarmed countdown failed an answer")
	}
	c.Arm(2)
	if got := []bool{c.Take(), c.Take(), c.Take()}; got[0] != true || got[1] != true || got[2] != false {
		t.Errorf("armed with 2, takes %v", got)
	}
	c.Arm(3)
	c.Arm(0)
	if c.Take() {
		t.Error("Arm(0) did not disarm")
	}
}
