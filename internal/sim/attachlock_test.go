package sim

import (
	"context"
	"testing"
	"time"
)

// TestAttachLockIsExclusiveAcrossOpens: the attach lock is held by one
// opener at a time (flock on separate opens, as separate processes have);
// a waiter gets it once the holder lets go, and a waiter whose time runs
// out proceeds unlocked.
func TestAttachLockIsExclusiveAcrossOpens(t *testing.T) {
	unlock, held := lockAttach(context.Background())
	if !held {
		t.Fatal("the attach lock could not be taken")
	}
	short, cancel := context.WithTimeout(context.Background(), 60*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, got := lockAttach(short); got {
		t.Fatal("a second opener took a held lock")
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Fatalf("gave up after %s, want it to wait until its context ended", waited)
	}

	got := make(chan bool, 1)
	go func() {
		u, held := lockAttach(context.Background())
		u()
		got <- held
	}()
	select {
	case <-got:
		t.Fatal("a waiter took the lock while it was held")
	case <-time.After(50 * time.Millisecond):
	}
	unlock()
	select {
	case held := <-got:
		if !held {
			t.Fatal("the waiter did not get the lock after it was let go")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter never got the lock")
	}
}
