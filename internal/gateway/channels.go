package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/openpocket/openpocket/internal/cron"
)

// startChannels starts the enabled chat channels; they run until stop.
func (g *Gateway) startChannels() error {
	if g.opts.StartChannels == nil {
		g.channelsReady(nil)
		return nil
	}
	level := slog.LevelInfo
	if g.opts.Verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(g.opts.Stderr, &slog.HandlerOptions{Level: level}))
	chans, err := g.opts.StartChannels(g.cfg, g.home.State(), g.current, logger)
	if err != nil {
		g.channelsReady(nil)
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	g.chCancel = cancel
	for _, ch := range chans {
		g.chWG.Add(1)
		go func() {
			defer g.chWG.Done()
			if err := ch.Run(ctx); err != nil {
				g.print.line("!", "channel %s stopped: %v", ch.Name(), err)
			}
		}()
		g.print.line("●", "channel %s started", ch.Name())
	}
	g.channelsReady(chans)
	return nil
}

// channelsReady makes chans the channels results go to and delivers the
// results of jobs that finished before they started (runOnStartup jobs).
func (g *Gateway) channelsReady(chans []Channel) {
	g.chMu.Lock()
	g.channels, g.chReady = chans, true
	early := g.early
	g.early = nil
	g.chMu.Unlock()
	for _, e := range early {
		g.deliver(e)
	}
}

// stopChannels stops taking messages, cancels the channels' tasks and
// waits for them up to timeout.
func (g *Gateway) stopChannels(timeout time.Duration) error {
	if g.chCancel == nil {
		return nil
	}
	g.chCancel()
	done := make(chan struct{})
	go func() {
		g.chWG.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-time.After(timeout):
		return errors.New("chat channels did not stop in time")
	}
}

// ChatAllower is a Channel that says whether a chat is one it allows
// (Telegram: allowedUserIds, allowedChatIds). Jobs whose delivery
// OpenPocket did not sign deliver only to such chats.
type ChatAllower interface {
	AllowsChat(to string) bool
}

// deliver posts a finished job's result to the chat its delivery names.
func (g *Gateway) deliver(e cron.Event) {
	if e.Kind != cron.EventFinished {
		return
	}
	g.chMu.Lock()
	if !g.chReady {
		g.early = append(g.early, e)
		g.chMu.Unlock()
		return
	}
	chans := g.channels
	g.chMu.Unlock()
	if len(chans) == 0 {
		return
	}
	f, _, err := cron.LoadJobs(g.jobsPath)
	if err != nil {
		return // the scheduler reports a broken jobs file itself
	}
	job, ok := f.Find(e.JobID)
	if !ok {
		return
	}
	d, ok, err := cron.DeliveryOf(*job)
	if err != nil {
		g.print.line("!", "warning: %v", err)
	}
	if !ok {
		return
	}
	name := job.Name
	if name == "" {
		name = job.ID
	}
	text := fmt.Sprintf("✓ %s: %s", name, e.Message)
	if e.Status != cron.StatusOK {
		text = fmt.Sprintf("✗ %s failed: %s", name, e.Message)
	}
	trusted := false
	if key, err := cron.DeliveryKey(g.home.State()); err == nil {
		trusted = cron.DeliveryTrusted(*job, d, key)
	}
	for _, ch := range chans {
		if ch.Name() != d.Channel {
			continue
		}
		// A delivery OpenPocket did not write (by hand, or by the model
		// through the workspace) goes only to a chat the channel allows.
		if a, ok := ch.(ChatAllower); !trusted && (!ok || !a.AllowsChat(d.To)) {
			g.print.line("!", "job %s: result not delivered: its delivery to %s %s was written outside openpocket (jobs.json edited by hand or by the model) and that chat is not allowed (channels.%s allowed users/chats)", job.ID, d.Channel, d.To, d.Channel)
			return
		}
		g.chWG.Add(1)
		go func() { // never block the scheduler on a slow chat
			defer g.chWG.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			if err := ch.Deliver(ctx, d.To, text); err != nil {
				g.print.line("!", "job %s: result not delivered to %s %s: %v", job.ID, d.Channel, d.To, err)
			}
		}()
		return
	}
	g.print.line("!", "job %s: delivery to %s, which is not running (channels.%s.enabled)", job.ID, d.Channel, d.Channel)
}
