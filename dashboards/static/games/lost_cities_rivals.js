// lost_cities_rivals: no drawn table yet; the replay viewer shows the observation fields.
"use strict";
