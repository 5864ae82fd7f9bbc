package main

import (
	"log/slog"

	"github.com/openpocket/openpocket/internal/channel"
	"github.com/openpocket/openpocket/internal/channel/telegram"
	"github.com/openpocket/openpocket/internal/cli"
	"github.com/openpocket/openpocket/internal/workspace"
)

// The CLI's runner is the channels' Runner; the bots are its ChatChannels.
var (
	_ channel.Runner  = (*cli.ChannelRunner)(nil)
	_ cli.ChatChannel = (channel.Channel)(nil)
)

// startChannels builds the chat channels config.json enables.
func startChannels(cfg workspace.Config, stateDir string, runner *cli.ChannelRunner, logger *slog.Logger) ([]cli.ChatChannel, error) {
	var out []cli.ChatChannel
	if tg := cfg.Channels.Telegram; tg.Enabled {
		b, err := telegram.New(telegram.Options{
			Token:          tg.Token(),
			APIBaseURL:     tg.APIBaseURL,
			AllowedUserIDs: tg.AllowedUserIDs,
			AllowedChatIDs: tg.AllowedChatIDs,
			ProgressEvery:  tg.ProgressEverySteps,
			Runner:         runner,
			RelayURL:       runner.RelayLink,
			StateDir:       stateDir,
			Logger:         logger,
		})
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
