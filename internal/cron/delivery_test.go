package cron

import (
	"encoding/json"
	"testing"
)

func TestDeliveryOf(t *testing.T) {
	cases := []struct {
		name string
		job  Job
		want Delivery
		ok   bool
		bad  bool
	}{
		{"none", Job{ID: "a"}, Delivery{}, false, false},
		{"null", Job{ID: "a", Delivery: json.RawMessage("null")}, Delivery{}, false, false},
		{"number", Job{ID: "a", Delivery: json.RawMessage(`{"channel": "telegram", "to": 42}`)}, Delivery{"telegram", "42"}, true, false},
		{"string", Job{ID: "a", Delivery: json.RawMessage(`{"channel": "telegram", "to": "-1001"}`)}, Delivery{"telegram", "-1001"}, true, false},
		{"legacy chatId", Job{ID: "a", Extra: map[string]json.RawMessage{"chatId": json.RawMessage("12345")}}, Delivery{"telegram", "12345"}, true, false},
		{"no channel", Job{ID: "a", Delivery: json.RawMessage(`{"to": 42}`)}, Delivery{}, false, true},
		{"not an object", Job{ID: "a", Delivery: json.RawMessage(`"telegram"`)}, Delivery{}, false, true},
	}
	for _, c := range cases {
		got, ok, err := DeliveryOf(c.job)
		if (err != nil) != c.bad || ok != c.ok || got != c.want {
			t.Errorf("%s: DeliveryOf = %+v, %v, %v; want %+v, %v, error %v", c.name, got, ok, err, c.want, c.ok, c.bad)
		}
	}
	var j Job
	j.SetDelivery(Delivery{Channel: "telegram", To: "42"})
	if got, ok, err := DeliveryOf(j); !ok || err != nil || got.To != "42" {
		t.Errorf("SetDelivery round trip: %+v %v %v", got, ok, err)
	}
}
