module example.com/allocsilent

go 1.26
