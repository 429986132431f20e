import type { WorldTemplate } from "../world-template.js";

/** Carewell Clinical Scheduling API: Scheduling for outpatient clinics: treatment rooms, their equipment calibration, and booking requests. */
export const CLINICAL_SCHEDULING: WorldTemplate = {
  id: "clinical-scheduling",
  title: "Carewell Clinical Scheduling API",
  description:
    "Scheduling for outpatient clinics: treatment rooms, their equipment calibration, and booking requests.",
  port: 9005,
  base: "/v3",
  deprecatedBase: "/v1",
  lookalike: { segment: "referrer", audience: "referring practices" },
  tokenPath: "/v3/token",
  tokenPrefix: "cw_",
  ttl: 5,
  updateMethod: "PUT",
  pagination: { style: "offset", pageSize: 14, maxPageSize: 20 },
  collectionSize: 58,
  reporters: [
    "the clinic coordinator",
    "Dr. Haines' office",
    "the equipment officer",
    "the bookings team lead",
  ],
  systems: ["the booking portal", "the calibration tracker", "the referral importer", "the daily rota job"],
  asset: {
    plural: "rooms",
    noun: "treatment room",
    idField: "room_code",
    idPattern: "RM-@##",
    nameField: "title",
    names: ["Dialysis Bay", "Physio Suite", "Imaging Annex", "Minor Ops", "Infusion Lounge", "Eye Clinic"],
    canaryFields: [
      {
        name: "calibration_cert",
        description: "Certificate of the latest equipment calibration",
        format: "CAL-{code}",
      },
      { name: "access_badge", description: "Badge series that opens the room", format: "BDG-{code}" },
    ],
    enumField: { name: "wing", description: "Hospital wing", values: ["north-wing", "south-wing", "annex"] },
    numberField: {
      name: "utilisation_pct",
      description: "Utilisation this week in percent",
      min: 10,
      max: 99,
    },
    linkField: { name: "held_booking_id", description: "The booking currently holding the room" },
  },
  work: {
    plural: "bookings",
    noun: "booking request",
    idField: "booking_id",
    idTemplate: "BK-{canary}",
    levelField: { name: "acuity", values: ["elective", "soon", "same-day"] },
    copyField: "calibration_cert",
    statusField: "booking_status",
    initialStatus: "awaiting-triage",
    nextStatuses: ["confirmed", "completed"],
    noteField: "clinical_note",
  },
  errors: { shape: "problem", message_template: "The request could not be completed: {message}." },
};
