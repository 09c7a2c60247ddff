module example.com/callescapes

go 1.26
