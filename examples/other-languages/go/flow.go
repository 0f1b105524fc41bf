//go:build ignore

// The payment flow against the Merchant Open Platform sandbox, Go standard library only:
//
//	npx mop sandbox                      # in another terminal: http://127.0.0.1:4010
//	go run flow.go --base-url http://127.0.0.1:4010
//
// syncCustomer -> createOrder (the sandbox's order ids are above 2^53) -> getOrder -> payOrder ->
// the trade paid through the sandbox's control API (as the buyer would) -> queryPayment. Ids are
// int64 fields: encoding/json reads them exactly (an interface{} would hold a rounded float64).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"example.com/mop-recipes/mop"
)

type orderItem struct {
	ItemType int    `json:"itemType"`
	ItemID   int64  `json:"itemId"`
	ItemName string `json:"itemName"`
	Price    int64  `json:"price"`
	Quantity int    `json:"quantity"`
}

type order struct {
	ID          int64 `json:"id"`
	MerchantID  int64 `json:"merchantId"`
	Status      int   `json:"status"`
	TotalAmount int64 `json:"totalAmount"`
}

type trade struct {
	TradeNo    string `json:"tradeNo"` // a string of digits: keep it a string
	CashierURL string `json:"cashierUrl"`
}

type payment struct {
	TradeNo     string `json:"tradeNo"`
	TradeStatus string `json:"tradeStatus"`
	TotalAmount int64  `json:"totalAmount"`
}

func env(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

// payThroughSandbox pays the trade as the buyer would at the cashier: the sandbox's control API, no signature.
func payThroughSandbox(baseURL, tradeNo string) error {
	request, _ := http.NewRequest("POST", baseURL+"/sandbox/trades/"+url.PathEscape(tradeNo)+"/pay", nil)
	request.Header.Set("Content-Type", "application/json")
	response, err := (&http.Client{Timeout: 30 * time.Second}).Do(request)
	if err != nil {
		return err
	}
	defer response.Body.Close()
	var answer struct {
		Code int64  `json:"code"`
		Msg  string `json:"msg"`
	}
	if err := json.NewDecoder(response.Body).Decode(&answer); err != nil {
		return err
	}
	if answer.Code != 0 {
		return fmt.Errorf("payTrade: HTTP %d, code %d: %s", response.StatusCode, answer.Code, answer.Msg)
	}
	return nil
}

func run() error {
	baseURL := flag.String("base-url", "http://127.0.0.1:4010", "the sandbox (its /open-api/v1 and /sandbox)")
	appKey := flag.String("app-key", env("MOP_APP_KEY", "demo-app-key"), "app key")
	appSecret := flag.String("app-secret", env("MOP_APP_SECRET", "demo-app-secret"), "app secret")
	merchantID := flag.Int64("merchant-id", 10001, "merchant id")
	openUserID := flag.String("open-user-id", "go-user-4711", "the app's own user id")
	notifyURL := flag.String("notify-url", "https://app.example.com/mop/notify", "where the payment callback goes")
	flag.Parse()
	base := strings.TrimRight(*baseURL, "/")
	client := &mop.Client{BaseURL: base + "/open-api/v1", AppKey: *appKey, AppSecret: *appSecret}

	var customer struct {
		AppUserID int64 `json:"appUserId"`
	}
	if err := client.Call("syncCustomer", "POST", "/customers/sync", nil, map[string]string{"openUserId": *openUserID}, &customer); err != nil {
		return err
	}
	fmt.Printf("customer %s: appUserId %d\n", *openUserID, customer.AppUserID)

	var orderID int64
	body := map[string]interface{}{
		"merchantId": *merchantID,
		"userId":     customer.AppUserID,
		"orderType":  1,
		"items":      []orderItem{{ItemType: 1, ItemID: 30001, ItemName: "拿铁 Latte", Price: 2800, Quantity: 2}},
	}
	if err := client.Call("createOrder", "POST", "/orders", nil, body, &orderID); err != nil {
		return err
	}
	side := "below"
	if orderID > 1<<53 {
		side = "above"
	}
	fmt.Printf("order %d created (%s 2^53, kept exact)\n", orderID, side)

	path := "/orders/" + strconv.FormatInt(orderID, 10)
	merchant := url.Values{"merchantId": {strconv.FormatInt(*merchantID, 10)}}
	var read order
	if err := client.Call("getOrder", "GET", path, merchant, nil, &read); err != nil {
		return err
	}
	if read.ID != orderID {
		return fmt.Errorf("getOrder answered order %d, not %d", read.ID, orderID)
	}
	fmt.Printf("order %d read back: status %d, totalAmount %d\n", read.ID, read.Status, read.TotalAmount)

	var opened trade
	if err := client.Call("payOrder", "POST", path+"/pay", nil, map[string]interface{}{"merchantId": *merchantID, "notifyUrl": *notifyURL}, &opened); err != nil {
		return err
	}
	fmt.Printf("trade %s waiting for payment: %s\n", opened.TradeNo, opened.CashierURL)

	if err := payThroughSandbox(base, opened.TradeNo); err != nil {
		return err
	}
	fmt.Printf("trade %s paid through the sandbox control API\n", opened.TradeNo)

	var paid payment
	if err := client.Call("queryPayment", "GET", "/payment/query", url.Values{"tradeNo": {opened.TradeNo}}, nil, &paid); err != nil {
		return err
	}
	fmt.Printf("payment %s: trade %s, order %d, totalAmount %d\n", paid.TradeStatus, paid.TradeNo, orderID, paid.TotalAmount)
	if paid.TradeStatus != "SUCCESS" {
		return fmt.Errorf("the trade is %s, not SUCCESS", paid.TradeStatus)
	}
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "flow failed:", err)
		os.Exit(1)
	}
}
