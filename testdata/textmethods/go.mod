module example.com/textmethods

go 1.24
