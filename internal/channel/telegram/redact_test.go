package telegram_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpocket/openpocket/internal/channel/telegram"
	"github.com/openpocket/openpocket/internal/channel/telegram/telegramtest"
)

// TestTokenRedactedWithABotPathInTheBaseURL: an apiBaseUrl whose path
// starts with "/bot" (a self-hosted server behind /botapi) used to make
// the redaction hide that segment and print the token after it.
func TestTokenRedactedWithABotPathInTheBaseURL(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + l.Addr().String() + "/botapi"
	l.Close() // nothing listens: every call fails with its URL in the error
	srv := telegramtest.NewServer(t, token)
	b, logs := startBot(t, srv, &fakeRunner{}, func(o *telegram.Options) { o.APIBaseURL = base })
	err = b.Deliver(context.Background(), "42", "hello")
	require.Error(t, err)
	time.Sleep(300 * time.Millisecond) // let polling log its failures too
	assert.NotContains(t, err.Error(), "TEST-token-value")
	assert.True(t, strings.Contains(err.Error(), "/botapi") || strings.Contains(err.Error(), "***"), err.Error())
	assert.NotContains(t, logs.String(), "TEST-token-value")
	assert.NotContains(t, logs.String(), "123456:")
}

// TestAllowsChatIsTheAllowList: a job's delivery written outside
// OpenPocket reaches only these chats (see internal/gateway).
func TestAllowsChatIsTheAllowList(t *testing.T) {
	srv := telegramtest.NewServer(t, token)
	b, _ := startBot(t, srv, &fakeRunner{}, func(o *telegram.Options) { o.AllowedChatIDs = []int64{-100777} })
	assert.True(t, b.AllowsChat("42"), "an allowed user's private chat")
	assert.True(t, b.AllowsChat("-100777"))
	assert.False(t, b.AllowsChat("999"))
	assert.False(t, b.AllowsChat("not a number"))
}
