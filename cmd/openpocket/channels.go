package main

import (
	"fmt"
	"log/slog"

	"github.com/openpocket/openpocket/internal/channel"
	"github.com/openpocket/openpocket/internal/channel/telegram"
	"github.com/openpocket/openpocket/internal/cli"
	"github.com/openpocket/openpocket/internal/gwenv"
	"github.com/openpocket/openpocket/internal/workspace"
)

// The CLI's runner is the channels' Runner; the bots are the gateway's Channels (gwenv).
var (
	_ channel.Runner = (*cli.ChannelRunner)(nil)
	_ gwenv.Channel  = (channel.Channel)(nil)
)

// StartChannels builds the chat channels config.json enables.
func (*application) StartChannels(cfg workspace.Config, stateDir string, runner *cli.ChannelRunner, logger *slog.Logger) ([]gwenv.Channel, error) {
	var out []gwenv.Channel
	if tg := cfg.Channels.Telegram; tg.Enabled {
		if tg.Token() == "" && tg.BotTokenEnv != "" {
			return nil, fmt.Errorf("channels.telegram: the variable %s (botTokenEnv) is not set", tg.BotTokenEnv)
		}
		if tg.StartedByUpstreamRule {
			logger.Info("telegram: starting because channels.telegram has a bot token and no \"enabled\" key (upstream's rule); add \"enabled\": false to keep it off")
		}
		var hook *telegram.Webhook
		if tg.WebhookURL != "" {
			hook = &telegram.Webhook{URL: tg.WebhookURL, Listen: tg.WebhookListen}
			if hook.Listen == "" {
				hook.Listen = "127.0.0.1:8443"
			}
		}
		b, err := telegram.New(telegram.Options{
			Webhook:        hook,
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
