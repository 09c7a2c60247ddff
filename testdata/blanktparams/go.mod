module example.com/blanktparams

go 1.24
