const response = http.get('https://example.com/api')
output.body = json(response.body).value
