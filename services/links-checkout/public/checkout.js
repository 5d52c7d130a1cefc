// Hosted payment page: pay, wait for the USSD confirmation, end on a clear outcome.
// No framework: a few kilobytes that run on any phone browser.
(function () {
  'use strict';
  var dataNode = document.getElementById('page-data');
  if (!dataNode) return;
  var data = JSON.parse(dataNode.textContent || '{}');
  var t = data.t || {};
  var api = '/v1/checkout/sessions/' + encodeURIComponent(data.sessionId);
  var FINAL = { success: 1, failed: 1, expired: 1, cancelled: 1 };
  var pollTimer = null;
  var countdownTimer = null;
  var busy = false;
  // One Idempotency-Key per pay of one operator and number, kept while its answer is unknown
  // (no answer, 5xx): tapping Pay again then gets the first answer, never a second attempt.
  var payKey = null;
  var payKeyFor = null;

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    return Date.now().toString(36) + '-' + Math.random().toString(36).slice(2);
  }

  function $(id) {
    return document.getElementById(id);
  }

  function fill(template, values) {
    return String(template || '').replace(/\{(\w+)\}/g, function (whole, name) {
      return name in values ? String(values[name]) : whole;
    });
  }

  function announce(text) {
    var live = $('live');
    if (live) live.textContent = text || '';
  }

  function show(name) {
    var screens = document.querySelectorAll('.screen');
    for (var i = 0; i < screens.length; i++) screens[i].hidden = screens[i].id !== 'screen-' + name;
    var heading = document.querySelector('#screen-' + name + ' h2');
    if (heading) heading.focus();
  }

  function setError(id, text) {
    var node = $(id);
    if (!node) return;
    node.textContent = text || '';
    node.hidden = !text;
  }

  function request(method, path, body, key) {
    var headers = body
      ? { 'content-type': 'application/json', accept: 'application/json' }
      : { accept: 'application/json' };
    if (key) headers['idempotency-key'] = key;
    return fetch(api + path, {
      method: method,
      headers: headers,
      body: body ? JSON.stringify(body) : undefined,
      credentials: 'omit',
      cache: 'no-store',
    }).then(function (response) {
      return response
        .json()
        .catch(function () {
          return {};
        })
        .then(function (json) {
          return { ok: response.ok, status: response.status, body: json };
        });
    });
  }

  var plan = data.phonePlan || { home: null, countries: [] };

  // The number as the API will read it: international (+, 00 or bare calling code) for any
  // country of the currency, national only for the home country. Null when it is neither.
  function parsePhone(raw) {
    var digits = String(raw || '').replace(/[\s.()-]/g, '');
    var intl = digits.charAt(0) === '+' ? digits.slice(1) : null;
    if (intl === null && digits.indexOf('00') === 0) intl = digits.slice(2);
    var bare = intl === null ? digits : intl;
    if (!/^\d+$/.test(bare)) return null;
    for (var i = 0; i < plan.countries.length; i++) {
      var c = plan.countries[i];
      if (intl === null && c.country === plan.home && bare.length === c.length)
        return { country: c, national: bare };
      if (bare.indexOf(c.code) === 0 && bare.length === c.code.length + c.length)
        return { country: c, national: bare.slice(c.code.length) };
    }
    return null;
  }

  // The operator the plan names for a national number (longest prefix), or null: unknown.
  function operatorOf(country, national) {
    var best = null;
    for (var i = 0; i < country.prefixes.length; i++) {
      var rule = country.prefixes[i];
      if (national.indexOf(rule[0]) === 0 && (!best || rule[0].length > best[0].length)) best = rule;
    }
    return best && best[1];
  }

  // False only when the number's country does not offer the network or its plan names another operator.
  function belongsTo(number, network) {
    if (number.country.networks.indexOf(network) < 0) return false;
    var owner = operatorOf(number.country, number.national);
    return network === 'WAVE' || !owner || owner === network;
  }

  // Long enough to read the outcome (and for a screen reader to say it); the link back to
  // the merchant, shown meanwhile, lets a payer go sooner.
  var REDIRECT_DELAY_MS = 3000;

  function redirect(url) {
    if (!url) return;
    var note = $('redirect-note');
    if (note) note.hidden = false;
    setTimeout(function () {
      window.location.assign(url);
    }, REDIRECT_DELAY_MS);
  }

  function startCountdown() {
    var node = $('countdown');
    var deadline = Date.parse(data.expiresAt);
    if (!node || isNaN(deadline)) return;
    function tick() {
      var left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
      var minutes = Math.floor(left / 60);
      var seconds = left % 60;
      node.textContent = minutes + ':' + (seconds < 10 ? '0' : '') + seconds;
    }
    tick();
    clearInterval(countdownTimer);
    countdownTimer = setInterval(tick, 1000);
  }

  function finish(state) {
    clearTimeout(pollTimer);
    clearInterval(countdownTimer);
    data.status = state.status;
    if (state.status === 'failed') {
      var reason = $('failure-reason');
      if (reason) reason.textContent = t['failure_' + state.failureCode] || t.failure_default;
    }
    show(state.status);
    announce(document.querySelector('#screen-' + state.status + ' h2').textContent);
    if (state.status === 'success') redirect(data.successUrl);
    if (state.status === 'cancelled') redirect(data.cancelUrl);
  }

  function poll() {
    request('GET', '/status')
      .then(function (result) {
        if (!result.ok) throw new Error('status ' + result.status);
        var state = result.body;
        if (FINAL[state.status]) return finish(state);
        announce(t['status_' + state.status]);
        pollTimer = setTimeout(poll, 2000);
      })
      .catch(function () {
        pollTimer = setTimeout(poll, 4000);
      });
  }

  // The number as the server shows it: calling code, then the national digits in the
  // country's groups (the plan's `groups`), e.g. +237 6 90 00 00 01.
  function displayPhone(number) {
    var groups = number.country.groups || [];
    var parts = [];
    var at = 0;
    for (var i = 0; i < groups.length && at < number.national.length; i++) {
      parts.push(number.national.slice(at, at + groups[i]));
      at += groups[i];
    }
    if (at < number.national.length) parts.push(number.national.slice(at));
    return '+' + number.country.code + ' ' + parts.join(' ');
  }

  function wait(phone) {
    var text = $('waiting-text');
    if (text && phone) text.textContent = fill(t.waitingText, { phone: phone });
    show('waiting');
    announce(t.status_processing);
    startCountdown();
    clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, 2000);
  }

  function chosenOperator() {
    return document.querySelector('input[name="paymentMethod"]:checked');
  }

  function onSubmit(event) {
    event.preventDefault();
    if (busy) return;
    var operator = chosenOperator();
    var input = $('phone');
    setError('operator-error', '');
    setError('phone-error', '');
    setError('form-error', '');
    input.removeAttribute('aria-invalid');
    // Every problem at once: an empty form names the operator and the number together.
    var first = document.querySelector('input[name="paymentMethod"]');
    var example = (operator || first || input).getAttribute('data-example') || '';
    var number = parsePhone(input.value);
    var problem = !input.value.trim()
      ? t.errorPhoneRequired
      : !number
        ? fill(t.errorPhone, { example: example })
        : operator && !belongsTo(number, operator.value)
          ? fill(t.errorOperator, { operator: operator.parentNode.lastChild.textContent })
          : '';
    if (!operator) setError('operator-error', t.errorRequired);
    if (problem) {
      input.setAttribute('aria-invalid', 'true');
      setError('phone-error', problem);
    }
    if (!operator || problem) {
      setError('form-error', t.errorFix);
      return (operator ? input : first || input).focus();
    }
    var phone = '+' + number.country.code + number.national;
    busy = true;
    var button = document.querySelector('#pay-form button[type="submit"]');
    button.disabled = true;
    if (!payKey || payKeyFor !== operator.value + phone) {
      payKey = newKey();
      payKeyFor = operator.value + phone;
    }
    request('POST', '/pay', { paymentMethod: operator.value, phone: phone }, payKey)
      .then(function (result) {
        if (result.status < 500) payKey = null;
        if (result.ok) {
          if (result.body.expiresAt) data.expiresAt = result.body.expiresAt;
          return wait(displayPhone(number));
        }
        var code = result.body.code;
        if (code === 'invalid_phone') {
          input.setAttribute('aria-invalid', 'true');
          setError('phone-error', fill(t.errorPhone, { example: example }));
          return input.focus();
        }
        if (code === 'invalid_state' || code === 'payment_expired' || code === 'payment_cancelled')
          return poll();
        setError('form-error', t['failure_' + code] || result.body.message || t.failure_default);
      })
      .catch(function () {
        setError('form-error', t.errorNetwork);
      })
      .then(function () {
        busy = false;
        button.disabled = false;
      });
  }

  function onCancel() {
    if (busy) return;
    busy = true;
    clearTimeout(pollTimer);
    request('POST', '/cancel')
      .then(function (result) {
        if (result.ok) return finish({ status: 'cancelled' });
        return poll();
      })
      .catch(function () {
        setError('form-error', t.errorNetwork);
      })
      .then(function () {
        busy = false;
      });
  }

  var form = $('pay-form');
  if (form) form.addEventListener('submit', onSubmit);
  var cancels = document.querySelectorAll('[data-cancel]');
  for (var i = 0; i < cancels.length; i++) cancels[i].addEventListener('click', onCancel);
  var radios = document.querySelectorAll('input[name="paymentMethod"]');
  for (var j = 0; j < radios.length; j++)
    radios[j].addEventListener('change', function (event) {
      var hint = $('phone-hint');
      var example = event.target.getAttribute('data-example');
      if (hint && example) hint.textContent = fill(t.phoneHint, { example: example });
    });

  if (data.status === 'processing' || data.status === 'pending_ussd') wait('');
  else if (data.status === 'success') redirect(data.successUrl);
})();
