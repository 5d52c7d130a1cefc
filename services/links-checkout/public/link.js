// Payment-link page: collect what the link asks for, start a checkout session, go pay.
(function () {
  'use strict';
  var dataNode = document.getElementById('page-data');
  var form = document.getElementById('link-form');
  if (!dataNode || !form) return;
  var data = JSON.parse(dataNode.textContent || '{}');
  var t = data.t || {};
  var busy = false;
  var LINK_ERRORS = {
    link_inactive: t.linkInactive,
    link_expired: t.linkExpired,
    link_exhausted: t.linkExhausted,
  };

  function setError(input, text) {
    var node = document.getElementById(input ? input.id + '-error' : 'form-error');
    if (!node) return;
    node.textContent = text || '';
    node.hidden = !text;
    if (input) {
      if (text) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    }
  }

  function check(input) {
    var value = input.value.trim();
    if (!value) return input.required ? t.errorFieldRequired : '';
    if (input.name === 'amount') {
      var amount = Number(value);
      if (!/^\d+$/.test(value) || amount < data.min || amount > data.max) return t.errorAmount;
    }
    if (input.type === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return t.errorEmail;
    if (input.type === 'tel' && !/^\+?\d{8,15}$/.test(value.replace(/[\s.()-]/g, ''))) return t.errorPhone;
    return '';
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    if (busy) return;
    setError(null, '');
    var body = { customFields: {} };
    var firstInvalid = null;
    var inputs = form.querySelectorAll('input, select');
    for (var i = 0; i < inputs.length; i++) {
      var input = inputs[i];
      var problem = check(input);
      setError(input, problem);
      if (problem && !firstInvalid) firstInvalid = input;
      var value = input.value.trim();
      if (!value) continue;
      if (input.name.indexOf('custom.') === 0) body.customFields[input.name.slice(7)] = value;
      else if (input.name === 'amount') body.amount = Number(value);
      else if (input.name === 'phone') body.phone = value.replace(/[\s.()-]/g, '');
      else body[input.name] = value;
    }
    if (firstInvalid) return firstInvalid.focus();
    busy = true;
    var button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    fetch('/v1/pay/' + encodeURIComponent(data.shortCode) + '/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      credentials: 'omit',
    })
      .then(function (response) {
        return response.json().then(function (json) {
          if (response.ok && json.url) {
            var url = new URL(json.url, window.location.href);
            window.location.assign(url.pathname + '?lang=' + data.lang);
            return;
          }
          var errors = json.errors || [];
          var first = errors[0] || {};
          if (first.field === 'link') return setError(null, LINK_ERRORS[first.message] || json.message);
          // Every field the service refused, each under its own input.
          var shown = 0;
          for (var k = 0; k < errors.length; k++) {
            var name = errors[k].field.replace(/^customFields\./, 'custom.');
            var field = form.querySelector('[name="' + name + '"]');
            if (field) {
              setError(field, errors[k].message);
              if (!shown++) field.focus();
            }
          }
          if (!shown) setError(null, json.message || t.errorNetwork);
        });
      })
      .catch(function () {
        setError(null, t.errorNetwork);
      })
      .then(function () {
        busy = false;
        button.disabled = false;
      });
  });
})();
