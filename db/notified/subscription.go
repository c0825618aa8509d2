package notified

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/startstop"
)

// maxBackoff is the longest wait before subscribing again after a failure.
const maxBackoff = 30 * time.Second

// Config says what a Subscription listens to and whom it tells.
type Config struct {
	// Conn is the database to listen on; the subscription opens a dedicated connection
	// of its own (a pooled one would be lost to the pool).
	Conn *pgx.ConnConfig
	// Listen subscribes conn to the channels (LISTEN statements).
	Listen func(ctx context.Context, conn *pgx.Conn) error
	// Live is told true once subscribed and false when the subscription is lost.
	Live func(live bool)
	// Notify is given each notification, in commit order.
	Notify func(channel, payload string)
	// Lost is logged, as a warning, when the subscription stops working; Back when it
	// works again.
	Lost, Back string
	Logger     *slog.Logger
}

// Subscription keeps one instance subscribed to its channels, subscribing again with a
// growing backoff after a failure.
type Subscription struct {
	cfg  Config
	life startstop.Base
}

// NewSubscription returns a subscription that Start starts.
func NewSubscription(cfg Config) *Subscription { return &Subscription{cfg: cfg} }

// Start subscribes in the background until Stop; ctx ending stops nothing. Starting
// twice is a no-op.
func (s *Subscription) Start(ctx context.Context) error {
	s.life.Start(context.WithoutCancel(ctx), func(ctx context.Context) {
		ctx, cancel := s.life.WithStop(ctx)
		defer cancel()
		s.Run(ctx)
	})
	return nil
}

// Stop ends the subscription (Live is told false) and waits until it has, or ctx ends.
func (s *Subscription) Stop(ctx context.Context) error {
	if err := s.life.Stop(ctx); err != nil {
		return fmt.Errorf("notified: stop the subscription: %w", context.Cause(ctx))
	}
	return nil
}

// Run subscribes, and again after each failure, until ctx ends; Start runs it in the
// background. A failure is logged once, when the subscription stops working, not at
// every retry.
func (s *Subscription) Run(ctx context.Context) {
	var backoff time.Duration
	warned := false
	for ctx.Err() == nil {
		err := s.listenOnce(ctx, func() {
			backoff = 0
			if warned {
				s.cfg.Logger.Info(s.cfg.Back)
				warned = false
			}
		})
		s.cfg.Live(false)
		if ctx.Err() != nil {
			return
		}
		if !warned {
			s.cfg.Logger.Warn(s.cfg.Lost, "err", err)
			warned = true
		}
		backoff = min(max(2*backoff, time.Second), maxBackoff)
		timer := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
		case <-timer.C:
		}
		timer.Stop()
	}
}

// listenOnce opens the connection, subscribes, tells Live and hands over each
// notification until the connection fails or ctx ends.
func (s *Subscription) listenOnce(ctx context.Context, connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, s.cfg.Conn.Copy())
	if err != nil {
		return fmt.Errorf("notified: listen: connect: %w", err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if err := s.cfg.Listen(ctx, conn); err != nil {
		return fmt.Errorf("notified: listen: %w", err)
	}
	s.cfg.Live(true)
	connected()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("notified: listen: %w", err)
		}
		s.cfg.Notify(n.Channel, n.Payload)
	}
}
