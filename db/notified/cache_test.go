package notified_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/notified"
)

// clock is a time that tests move by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newCache(c *clock, max int) *notified.Cache[string, int] {
	return notified.NewCache[string, int](c.now, time.Minute, max)
}

func TestCacheAnswersOnlyWhileLive(t *testing.T) {
	c := newCache(&clock{t: time.Now()}, 10)
	c.Put("a", 1, c.Mark())
	_, ok := c.Get("a")
	require.False(t, ok, "off until its subscription is up")

	c.SetLive(true)
	c.Put("a", 1, c.Mark())
	v, ok := c.Get("a")
	require.True(t, ok)
	require.Equal(t, 1, v)

	c.SetLive(false)
	_, ok = c.Get("a")
	require.False(t, ok, "off while the subscription is down")
	c.SetLive(true)
	_, ok = c.Get("a")
	require.False(t, ok, "empty when it comes up again: changes may have been missed")
}

func TestCacheDropsAReadThatRacedAChange(t *testing.T) {
	c := newCache(&clock{t: time.Now()}, 10)
	c.SetLive(true)
	for name, change := range map[string]func(){
		"evicted":      func() { c.Evict("other") },
		"replaced":     func() { c.Replace("other", 2) },
		"resubscribed": func() { c.SetLive(true) },
	} {
		mark := c.Mark()
		change()
		c.Put("a", 1, mark)
		_, ok := c.Get("a")
		require.False(t, ok, name)
	}
}

func TestCacheReplacesOnlyWhatItHolds(t *testing.T) {
	c := newCache(&clock{t: time.Now()}, 10)
	c.SetLive(true)
	c.Replace("a", 2)
	_, ok := c.Get("a")
	require.False(t, ok, "a notification does not fill the cache")

	c.Put("a", 1, c.Mark())
	c.Replace("a", 2)
	v, ok := c.Get("a")
	require.True(t, ok)
	require.Equal(t, 2, v)

	c.Evict("a")
	_, ok = c.Get("a")
	require.False(t, ok)
}

func TestCacheCountsTheTTLFromBeforeTheRead(t *testing.T) {
	clk := &clock{t: time.Now()}
	c := newCache(clk, 10)
	c.SetLive(true)
	mark := c.Mark()
	clk.t = clk.t.Add(30 * time.Second) // a slow read
	c.Put("a", 1, mark)
	clk.t = clk.t.Add(30 * time.Second)
	_, ok := c.Get("a")
	require.False(t, ok, "a minute after the read began")

	c.Put("b", 1, c.Mark())
	clk.t = clk.t.Add(time.Minute)
	c.Replace("b", 2)
	_, ok = c.Get("b")
	require.False(t, ok, "an announcement does not bring back what expired")
}

func TestCacheForgetsAfterItsTTL(t *testing.T) {
	clk := &clock{t: time.Now()}
	c := newCache(clk, 10)
	c.SetLive(true)
	c.Put("a", 1, c.Mark())
	clk.t = clk.t.Add(59 * time.Second)
	c.Replace("a", 2) // an announcement starts the time again
	clk.t = clk.t.Add(59 * time.Second)
	v, ok := c.Get("a")
	require.True(t, ok)
	require.Equal(t, 2, v)
	clk.t = clk.t.Add(time.Second)
	_, ok = c.Get("a")
	require.False(t, ok)
}

func TestCacheHoldsAtMostMax(t *testing.T) {
	c := newCache(&clock{t: time.Now()}, 2)
	c.SetLive(true)
	for _, k := range []string{"a", "b", "c"} {
		c.Put(k, 1, c.Mark())
	}
	_, ok := c.Get("a")
	require.False(t, ok, "emptied when full")
	_, ok = c.Get("c")
	require.True(t, ok)
}
