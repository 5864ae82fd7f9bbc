// Package telegram is the Telegram channel: a bot (github.com/go-telegram/bot
// over the Bot API, long polling) that takes commands and messages from the
// people allowed to use it, runs tasks on the phone through the channel's
// Runner, narrates their progress by editing one status message, asks for
// human authorization with inline buttons and delivers scheduled results.
// Messages from anyone else are ignored and logged, never answered.
package telegram

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openpocket/openpocket/internal/channel"
)

// Options configure a Bot.
type Options struct {
	// Token is the bot token (never logged).
	Token string
	// APIBaseURL is the Bot API server ("" = https://api.telegram.org).
	APIBaseURL string
	// AllowedUserIDs and AllowedChatIDs are who may use the bot: a message
	// counts when its sender or its chat is listed.
	AllowedUserIDs []int64
	AllowedChatIDs []int64
	// Runner runs tasks and takes screenshots.
	Runner channel.Runner
	// Logger gets strangers, retries and delivery failures (nil: discard).
	Logger *slog.Logger
	// ProgressEvery edits the status message every N steps (3 when ≤ 0);
	// a change of app edits it too.
	ProgressEvery int
	// Retry is the policy for calls answered with 429/5xx (DefaultRetry
	// when Attempts is 0).
	Retry Retry
	// PollTimeout is the long poll's length (30 s when 0).
	PollTimeout time.Duration
	// RelayURL, when set, links a human-auth request to its relay page.
	RelayURL func(requestID string) string
	// StateDir keeps each chat's conversation with the assistant
	// (StateDir/telegram/chat-ID.json); "" keeps none.
	StateDir string
	// HistoryTurns bounds a chat's remembered conversation (30 when ≤ 0).
	HistoryTurns int
	// Webhook, when set, receives updates by webhook instead of long
	// polling (the default).
	Webhook *Webhook
}

// Bot is the Telegram channel.
type Bot struct {
	o   Options
	api *tgbot.Bot
	log *slog.Logger

	mu        sync.Mutex
	task      *runningTask
	auths     map[string]*pendingAuth    // request id → request waiting for a person
	questions map[int64]*pendingQuestion // chat → request_user_input waiting for its reply
	chats     chatLocks                  // one assistant turn per chat at a time
	onboarded bool                       // workspace onboarding seen complete
	greeted   map[int64]bool             // chats greeted while onboarding
	workers   sync.WaitGroup
	// base is the context tasks and replies derive from: Run's, without
	// its cancellation (a stopping gateway still sends the final message).
	base context.Context
	stop context.CancelCauseFunc
}

var _ channel.Channel = (*Bot)(nil)

// New builds the bot; it does not contact the server until Run.
func New(o Options) (*Bot, error) {
	if strings.TrimSpace(o.Token) == "" {
		return nil, errors.New("telegram: no bot token (channels.telegram.botToken or botTokenEnv)")
	}
	if o.Runner == nil {
		return nil, errors.New("telegram: no runner")
	}
	knownTokens.Store(strings.TrimSpace(o.Token), struct{}{})
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Logger = slog.New(redactingHandler{o.Logger.Handler()})
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 3
	}
	if o.Retry.Attempts == 0 {
		o.Retry = DefaultRetry
	}
	if o.HistoryTurns <= 0 {
		o.HistoryTurns = 30
	}
	if o.PollTimeout <= 0 {
		o.PollTimeout = 30 * time.Second
	}
	b := &Bot{o: o, log: o.Logger, auths: map[string]*pendingAuth{}, questions: map[int64]*pendingQuestion{}, greeted: map[int64]bool{}}
	b.base, b.stop = context.WithCancelCause(context.Background())
	client := &retryingClient{inner: &http.Client{Timeout: o.PollTimeout + 15*time.Second}, retry: o.Retry, logger: o.Logger}
	opts := []tgbot.Option{
		tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(o.PollTimeout, client),
		tgbot.WithDefaultHandler(b.onUpdate),
		tgbot.WithNotAsyncHandlers(), // one update at a time, in order; long work runs in goroutines
		tgbot.WithErrorsHandler(func(err error) {
			if !errors.Is(err, context.Canceled) {
				b.log.Warn("telegram: bot API error", "err", redactToken(err.Error()))
			}
		}),
		tgbot.WithAllowedUpdates(tgbot.AllowedUpdates{"message", "callback_query"}),
	}
	if o.Webhook != nil {
		w := *o.Webhook
		w.secret = newSecret()
		o.Webhook = &w
		b.o.Webhook = &w
		opts = append(opts, tgbot.WithWebhookSecretToken(w.secret))
	}
	if o.APIBaseURL != "" {
		opts = append(opts, tgbot.WithServerURL(strings.TrimRight(o.APIBaseURL, "/")))
	}
	api, err := tgbot.New(o.Token, opts...)
	if err != nil {
		return nil, fmt.Errorf("telegram: %s", redactToken(err.Error()))
	}
	b.api = api
	if len(o.AllowedUserIDs) == 0 && len(o.AllowedChatIDs) == 0 {
		b.log.Warn("telegram: no allowedUserIds or allowedChatIds: every message will be ignored")
	}
	return b, nil
}

// Name implements channel.Channel.
func (b *Bot) Name() string { return "telegram" }

// Run long-polls for updates until ctx ends, then stops the running task
// (its session ends FAILED) and waits for it and for pending replies.
func (b *Bot) Run(ctx context.Context) error {
	var err error
	if b.o.Webhook != nil {
		err = b.runWebhook(ctx)
	} else {
		b.dropWebhook(ctx)
		b.api.Start(ctx)
	}
	b.mu.Lock()
	if b.task != nil {
		b.task.cancel(&channel.StopError{Reason: "stopped: the gateway is shutting down"})
	}
	b.mu.Unlock()
	b.stop(errors.New("gateway stopping"))
	b.workers.Wait()
	return err
}

// dropWebhook removes a webhook left from an earlier webhook setup: while
// one is set, Telegram refuses long polling (409 Conflict).
func (b *Bot) dropWebhook(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := b.api.DeleteWebhook(ctx, &tgbot.DeleteWebhookParams{}); err != nil && ctx.Err() == nil {
		b.log.Warn("telegram: deleteWebhook failed; long polling may be refused", "err", redactToken(err.Error()))
	}
}

// Deliver implements channel.Channel: to is a chat id.
func (b *Bot) Deliver(ctx context.Context, to string, text string) error {
	chat, err := strconv.ParseInt(strings.TrimSpace(to), 10, 64)
	if err != nil {
		return fmt.Errorf("telegram: delivery to %q: expected a chat id", to)
	}
	_, err = b.send(ctx, chat, text, nil)
	return err
}

// AllowsChat reports whether to is a chat id the bot allows: one of
// allowedChatIds, or an allowed user's private chat (its id is the
// user's). The gateway delivers results of jobs it did not write itself
// only to such chats.
func (b *Bot) AllowsChat(to string) bool {
	chat, err := strconv.ParseInt(strings.TrimSpace(to), 10, 64)
	return err == nil && (slices.Contains(b.o.AllowedChatIDs, chat) || slices.Contains(b.o.AllowedUserIDs, chat))
}

// allowed reports whether a message from user in chat may be answered.
func (b *Bot) allowed(user, chat int64) bool {
	return slices.Contains(b.o.AllowedUserIDs, user) || slices.Contains(b.o.AllowedChatIDs, chat)
}

// onUpdate is the library's handler for every update.
func (b *Bot) onUpdate(ctx context.Context, _ *tgbot.Bot, u *models.Update) {
	switch {
	case u.CallbackQuery != nil:
		b.onCallback(u.CallbackQuery)
	case u.Message != nil:
		m := u.Message
		var user int64
		if m.From != nil {
			user = m.From.ID
		}
		if !b.allowed(user, m.Chat.ID) {
			// Not answered: a reply would tell a stranger the bot is alive.
			b.log.Warn("telegram: ignored a message from someone not allowed", "user", user, "chat", m.Chat.ID)
			return
		}
		b.onMessage(m.Chat.ID, strings.TrimSpace(m.Text))
	}
}

// onMessage routes an allowed message: an answer to a pending question,
// a command, or a plain message.
func (b *Bot) onMessage(chat int64, text string) {
	if text == "" {
		return
	}
	if !strings.HasPrefix(text, "/") && (b.answerQuestion(chat, text) || b.answerPending(chat, text)) {
		return
	}
	if b.onboard(chat, text) {
		return
	}
	if !strings.HasPrefix(text, "/") {
		b.goWork(func() { b.converse(chat, text) })
		return
	}
	cmd, arg, _ := strings.Cut(text, " ")
	cmd, _, _ = strings.Cut(cmd, "@") // /run@my_bot in groups
	arg = strings.TrimSpace(arg)
	switch strings.ToLower(cmd) {
	case "/run":
		b.startTask(chat, arg)
	case "/stop":
		b.stopTask(chat)
	case "/status":
		b.reply(chat, b.status())
	case "/screen":
		b.goWork(func() { b.sendScreen(chat, "The phone's screen now.") })
	case "/auth":
		b.listAuth(chat)
	case "/skills":
		b.listSkills(chat)
	case "/skill":
		b.replaySkill(chat, arg)
	case "/cron":
		b.cronCommand(chat, arg)
	case "/help", "/start":
		b.reply(chat, helpText)
	default:
		b.reply(chat, fmt.Sprintf("I don't know %s. /help lists the commands.", cmd))
	}
}

const helpText = `Commands:
/run <task> — do something on the phone ("/run turn Wi-Fi off")
/stop — stop the running task
/status — busy or idle, current step and app
/screen — a screenshot of the phone
/skills — skills I can replay without a model
/skill <name> [key=value…] — replay a skill
/cron — scheduled jobs (/cron remove <id>)
/auth — pending human-auth requests, with approve/reject buttons
/help — this list
Anything else: just write. I answer, or start a task on the phone or schedule one ("every day at 8 check the weather") and say which.`

// goWork runs f in a tracked goroutine (Run waits for it).
func (b *Bot) goWork(f func()) {
	b.workers.Add(1)
	go func() {
		defer b.workers.Done()
		f()
	}()
}

// reply sends text to chat in the background (retries included).
func (b *Bot) reply(chat int64, text string) {
	b.goWork(func() {
		if _, err := b.send(b.base, chat, text, nil); err != nil {
			b.log.Warn("telegram: reply not sent", "chat", chat, "err", redactToken(err.Error()))
		}
	})
}

// send posts a message and returns its id. Sends outlive a stopping
// gateway by up to a minute so a final message still goes out.
func (b *Bot) send(ctx context.Context, chat int64, text string, markup models.ReplyMarkup) (int, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	p := &tgbot.SendMessageParams{ChatID: chat, Text: clip(text, 4000)}
	if markup != nil {
		p.ReplyMarkup = markup
	}
	m, err := b.api.SendMessage(ctx, p)
	if err != nil {
		return 0, err
	}
	return m.ID, nil
}

// edit replaces a message's text.
func (b *Bot) edit(chat int64, id int, text string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(b.base), time.Minute)
	defer cancel()
	_, err := b.api.EditMessageText(ctx, &tgbot.EditMessageTextParams{ChatID: chat, MessageID: id, Text: clip(text, 4000)})
	return err
}

// sendScreen sends a screenshot of the phone with caption.
func (b *Bot) sendScreen(chat int64, caption string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(b.base), time.Minute)
	defer cancel()
	png, err := b.o.Runner.Screenshot(ctx)
	if err != nil {
		b.log.Warn("telegram: screenshot failed", "err", err)
		if _, err := b.send(ctx, chat, "No screenshot: "+err.Error(), nil); err != nil {
			b.log.Warn("telegram: reply not sent", "chat", chat, "err", redactToken(err.Error()))
		}
		return
	}
	_, err = b.api.SendPhoto(ctx, &tgbot.SendPhotoParams{ChatID: chat, Caption: clip(caption, 1000),
		Photo: &models.InputFileUpload{Filename: "screen.png", Data: strings.NewReader(string(png))}})
	if err != nil {
		b.log.Warn("telegram: screenshot not sent", "chat", chat, "err", redactToken(err.Error()))
	}
}

// clip keeps text within Telegram's limits (in runes).
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
