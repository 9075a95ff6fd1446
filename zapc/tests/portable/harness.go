// The Go side of zapc's portable-schema round trips (zapc/tests/portable.rs): code that
// the Go zapgen generated from `zapc export` output reads a message zapc wrote, prints
// every field, and builds the message again with the generated builder.
//
//	harness STRUCT HEX
//
// prints one `Field=value` line per field (integers in decimal, floats as their bits,
// text, bytes and bytes_fixed as hex, lists as [a,b], structs as {F=v;G=w}), then
// `rebuilt=HEX`: what New<STRUCT> writes from the values read.
package main

import (
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"strings"

	"zapgo-peer/gen/eth"
	"zapgo-peer/gen/kitchen"
)

func h(b []byte) string { return "0x" + hex.EncodeToString(b) }

func leaf(v kitchen.Leaf) string {
	return fmt.Sprintf("{Tag=%d;Note=%s}", v.Tag(), h([]byte(v.Note())))
}

func leafInput(v kitchen.Leaf) kitchen.LeafInput {
	return kitchen.LeafInput{Tag: v.Tag(), Note: v.Note()}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: harness STRUCT HEX")
		os.Exit(2)
	}
	msg, err := hex.DecodeString(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "bad hex:", err)
		os.Exit(2)
	}
	var lines []string
	out := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	var rebuilt []byte
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "wrap:", err)
		os.Exit(1)
	}
	switch os.Args[1] {
	case "BalanceRequest":
		v, err := eth.WrapBalanceRequest(msg)
		if err != nil {
			fail(err)
		}
		acct := v.Account()
		out("Id=%d", v.Id())
		out("Block=%d", v.Block())
		out("Account=%s", h(acct[:]))
		rebuilt = eth.NewBalanceRequest(eth.BalanceRequestInput{Id: v.Id(), Block: v.Block(), Account: acct})
	case "BalanceResponse":
		v, err := eth.WrapBalanceResponse(msg)
		if err != nil {
			fail(err)
		}
		hash := v.BlockHash()
		out("Id=%d", v.Id())
		out("Balance=%d", v.Balance())
		out("Nonce=%d", v.Nonce())
		out("BlockHash=%s", h(hash[:]))
		rebuilt = eth.NewBalanceResponse(eth.BalanceResponseInput{Id: v.Id(), Balance: v.Balance(), Nonce: v.Nonce(), BlockHash: hash})
	case "ChainIdResponse":
		v, err := eth.WrapChainIdResponse(msg)
		if err != nil {
			fail(err)
		}
		out("ChainId=%d", v.ChainId())
		rebuilt = eth.NewChainIdResponse(eth.ChainIdResponseInput{ChainId: v.ChainId()})
	case "BlockNumberResponse":
		v, err := eth.WrapBlockNumberResponse(msg)
		if err != nil {
			fail(err)
		}
		out("Number=%d", v.Number())
		rebuilt = eth.NewBlockNumberResponse(eth.BlockNumberResponseInput{Number: v.Number()})
	case "VersionResponse":
		v, err := eth.WrapVersionResponse(msg)
		if err != nil {
			fail(err)
		}
		out("Version=%s", h([]byte(v.Version())))
		rebuilt = eth.NewVersionResponse(eth.VersionResponseInput{Version: v.Version()})
	case "BlockHeader":
		v, err := eth.WrapBlockHeader(msg)
		if err != nil {
			fail(err)
		}
		hash, parent := v.Hash(), v.ParentHash()
		out("Number=%d", v.Number())
		out("Timestamp=%d", v.Timestamp())
		out("Hash=%s", h(hash[:]))
		out("ParentHash=%s", h(parent[:]))
		rebuilt = eth.NewBlockHeader(eth.BlockHeaderInput{Number: v.Number(), Timestamp: v.Timestamp(), Hash: hash, ParentHash: parent})
	case "HeadsRequest":
		v, err := eth.WrapHeadsRequest(msg)
		if err != nil {
			fail(err)
		}
		out("Count=%d", v.Count())
		rebuilt = eth.NewHeadsRequest(eth.HeadsRequestInput{Count: v.Count()})
	case "Leaf":
		v, err := kitchen.WrapLeaf(msg)
		if err != nil {
			fail(err)
		}
		out("Tag=%d", v.Tag())
		out("Note=%s", h([]byte(v.Note())))
		rebuilt = kitchen.NewLeaf(leafInput(v))
	case "Kitchen":
		v, err := kitchen.WrapKitchen(msg)
		if err != nil {
			fail(err)
		}
		id := v.Id()
		out("Flag=%t", v.Flag())
		out("A8=%d", v.A8())
		out("A16=%d", v.A16())
		out("A32=%d", v.A32())
		out("A64=%d", v.A64())
		out("S8=%d", v.S8())
		out("S16=%d", v.S16())
		out("S32=%d", v.S32())
		out("S64=%d", v.S64())
		out("F32=%#08x", math.Float32bits(v.F32Field()))
		out("F64=%#016x", math.Float64bits(v.F64Field()))
		out("Name=%s", h([]byte(v.Name())))
		out("Blob=%s", h(v.Blob()))
		out("Id=%s", h(id[:]))
		// A framed list of structs: each element is a whole message.
		items := v.Items()
		var shown []string
		var itemBytes [][]byte
		for i := 0; i < items.Len(); i++ {
			elem, err := kitchen.WrapLeaf(items.BytesAt(i))
			if err != nil {
				fail(err)
			}
			shown = append(shown, leaf(elem))
			itemBytes = append(itemBytes, kitchen.NewLeaf(leafInput(elem)))
		}
		out("Items=[%s]", strings.Join(shown, ","))
		out("Inner=%s", leaf(v.Inner()))
		// A strided list of u32: element i at start + 4*i.
		nums := v.Nums()
		var numbers []string
		var numBytes [][]byte
		for i := 0; i < nums.Len(); i++ {
			numbers = append(numbers, fmt.Sprint(nums.Uint32(i)))
			numBytes = append(numBytes, []byte{byte(nums.Uint32(i)), byte(nums.Uint32(i) >> 8), byte(nums.Uint32(i) >> 16), byte(nums.Uint32(i) >> 24)})
		}
		out("Nums=[%s]", strings.Join(numbers, ","))
		rebuilt = kitchen.NewKitchen(kitchen.KitchenInput{
			Flag: v.Flag(), A8: v.A8(), A16: v.A16(), A32: v.A32(), A64: v.A64(),
			S8: v.S8(), S16: v.S16(), S32: v.S32(), S64: v.S64(), F32Field: v.F32Field(), F64Field: v.F64Field(),
			Name: v.Name(), Blob: v.Blob(), Id: id, Items: itemBytes,
			Inner: kitchen.NewLeaf(leafInput(v.Inner())), Nums: numBytes,
		})
	default:
		fmt.Fprintln(os.Stderr, "unknown struct", os.Args[1])
		os.Exit(2)
	}
	for _, line := range lines {
		fmt.Println(line)
	}
	fmt.Printf("rebuilt=%s\n", hex.EncodeToString(rebuilt))
}
