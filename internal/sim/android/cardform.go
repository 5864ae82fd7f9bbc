package android

import (
	"strings"
)

// The Pay app's "Pay by card" form: card number, expiry, CVC and the
// cardholder's name, drawn into one SurfaceView of a FLAG_SECURE window
// (see cardEntry), so neither the dump nor screencap shows a field. Focus
// still moves as in a real Android form: the form opens in touch mode with
// nothing focused; TAB (a hardware keyboard's focus-forward, which leaves
// touch mode) focuses the first field, then the next; the IME's action on
// each field is "Next" (ENTER moves on) and on the last field "Pay"
// (ENTER submits the form).
const (
	fieldCardNumber = PkgPay + ":id/card_number"
	fieldCardExpiry = PkgPay + ":id/card_expiry"
	fieldCardCVC    = PkgPay + ":id/card_cvc"
	fieldCardName   = PkgPay + ":id/card_holder"
	keyTab          = 61
)

// cardFields are the form's fields in focus order.
var cardFields = []string{fieldCardNumber, fieldCardExpiry, fieldCardCVC, fieldCardName}

func init() { fieldKeys = append(fieldKeys, cardFields...) }

// CardPayment is a payment the card form accepted.
type CardPayment struct {
	Number, Expiry, CVC, Name string
}

// CardPaid returns the card of the payment made through the card form
// (ok false when none was made).
func (p *Phone) CardPaid() (c CardPayment, ok bool) {
	p.locked(func() {
		s := p.st.settings
		c = CardPayment{s[capKey("card_number")], s[capKey("card_expiry")], s[capKey("card_cvc")], s[capKey("card_holder")]}
		ok = c.Number != ""
	})
	return
}

// onCardFormLocked reports whether the card form is in front.
func (p *Phone) onCardFormLocked() bool {
	a := p.topLocked()
	return a.pkg == PkgPay && a.cls == clsCardEntry
}

func cardFieldIndex(key string) int {
	for i, k := range cardFields {
		if k == key {
			return i
		}
	}
	return -1
}

// tabLocked moves focus forward on the card form: from nothing to the
// first field, then field by field; past the last field focus stays on
// the last (the Pay button behind it takes no text). Elsewhere TAB is
// only logged, as before.
func (p *Phone) tabLocked() bool {
	if !p.onCardFormLocked() {
		return false
	}
	i := cardFieldIndex(p.st.focused)
	if i+1 < len(cardFields) {
		p.st.focused = cardFields[i+1]
		p.changed()
	}
	return true
}

// cardEnterLocked is the IME action of a card field: Next, and Pay on
// the last one.
func (p *Phone) cardEnterLocked() bool {
	i := cardFieldIndex(p.st.focused)
	if i < 0 || !p.onCardFormLocked() {
		return false
	}
	if i+1 < len(cardFields) {
		p.st.focused = cardFields[i+1]
		p.changed()
		return true
	}
	p.payByCardLocked()
	return true
}

// payByCardLocked checks the form as a card SDK does before charging:
// 13 to 19 digits passing the Luhn check, an MM/YY expiry, a 3 or 4 digit
// CVC and a name. A valid card records the payment and returns to the
// checkout; an invalid one leaves the form as it is.
func (p *Phone) payByCardLocked() {
	f := p.st.fields
	number := strings.NewReplacer(" ", "", "-", "").Replace(f[fieldCardNumber])
	expiry := strings.ReplaceAll(f[fieldCardExpiry], " ", "")
	cvc, name := f[fieldCardCVC], strings.TrimSpace(f[fieldCardName])
	if !luhn(number) || !validExpiry(expiry) || !allDigits(cvc) || len(cvc) < 3 || len(cvc) > 4 || name == "" {
		return
	}
	s := p.st.settings
	s[capKey("card_number")], s[capKey("card_expiry")], s[capKey("card_cvc")], s[capKey("card_holder")] = number, expiry, cvc, name
	s[capKey("paid")], s[capKey("paid_with")] = "1", "card •••• "+number[len(number)-4:]
	for _, k := range cardFields {
		delete(f, k)
	}
	p.st.focused = ""
	p.backLocked()
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func luhn(n string) bool {
	if len(n) < 13 || len(n) > 19 || !allDigits(n) {
		return false
	}
	sum := 0
	for i := range n {
		d := int(n[len(n)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

func validExpiry(e string) bool {
	mm, yy, ok := strings.Cut(e, "/")
	return ok && len(mm) == 2 && allDigits(mm) && mm >= "01" && mm <= "12" && (len(yy) == 2 || len(yy) == 4) && allDigits(yy)
}
