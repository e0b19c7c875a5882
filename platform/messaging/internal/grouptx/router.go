package grouptx

import (
	"context"
	"errors"
	"log/slog"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
)

// RunRouter runs router until ctx ends, then closes it rather than
// cancelling its subscribers: the messages in hand are handled and
// acknowledged, not cut off.
func RunRouter(ctx context.Context, router *message.Router) error {
	closed := make(chan error, 1)
	stop := context.AfterFunc(ctx, func() { closed <- router.Close() })
	err := router.Run(context.WithoutCancel(ctx))
	if !stop() {
		err = errors.Join(err, <-closed)
	}
	return err
}

// WatermillLogger adapts slog for Watermill, demoting its chatty info lines.
func WatermillLogger(logger *slog.Logger) watermill.LoggerAdapter {
	return watermill.NewSlogLoggerWithLevelMapping(logger, map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug})
}
