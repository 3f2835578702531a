module github.com/rexmle/rexmle

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/magefile/mage v1.17.2 // indirect
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
	github.com/openai/openai-go v1.12.0 // indirect
	github.com/tidwall/gjson v1.14.4 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	golang.org/x/image v0.47.0 // indirect
)
